import { useCallback, useEffect, useState } from "react";
import { StatePill } from "../../components/StatePill";
import { type AttemptReview, describeError, reviewEvents, reviewIpc } from "../../ipc";
import { attemptWord } from "../../states";
import { DiffPane } from "./diff/DiffPane";
import {
  approveBlockedReason,
  defaultCommitMessage,
  formatCost,
  formatElapsed,
  taskTitle,
} from "./format";
import { reviewHash } from "./route";

/** Every attempt of a compare group side by side; "Pick this one" integrates the winner. */
export function CompareView({ id }: { id: string }) {
  const [reviews, setReviews] = useState<AttemptReview[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      const group = await reviewIpc.compareGroup(id);
      setReviews(await Promise.all(group.attempts.map((a) => reviewIpc.review(a.id))));
    } catch (e) {
      setError(describeError(e).message);
    }
  }, [id]);

  useEffect(() => {
    let gone = false;
    void reload();
    const unlisten = reviewEvents.onAttemptState(() => {
      if (!gone) void reload();
    });
    return () => {
      gone = true;
      void unlisten.then((stop) => stop());
    };
  }, [reload]);

  if (error && !reviews) return <p className="error">{error}</p>;
  if (!reviews) return <p className="muted">Loading the comparison…</p>;
  if (reviews.length === 0)
    return <p className="muted">No attempts belong to compare group {id}.</p>;

  const task = reviews[0]?.summary.task ?? "";
  const commit = message ?? defaultCommitMessage(task);
  const decided = reviews.some(
    (r) => r.summary.state === "integrated" || r.summary.state === "approved",
  );

  const pick = async (winner: string) => {
    setBusy(true);
    setError(null);
    try {
      await reviewIpc.pick(id, winner, commit.trim());
      await reload();
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="compare-view" id="compare-view" data-compare={id}>
      <header className="attempt-header">
        <div>
          <p className="eyebrow">
            <a href={reviewHash({ view: "list" })}>Review</a> / compare <code>{id}</code>
          </p>
          <h1 title={task}>{taskTitle(task)}</h1>
        </div>
        <span className="grow" />
        <div className="form-page compare-message">
          <label htmlFor="compare-message">Commit message</label>
          <input id="compare-message" value={commit} onChange={(e) => setMessage(e.target.value)} />
        </div>
      </header>
      {error && (
        <p className="error" role="alert" id="compare-error">
          {error}
        </p>
      )}
      <div
        className="compare-columns"
        style={{ gridTemplateColumns: `repeat(${reviews.length}, minmax(320px, 1fr))` }}
      >
        {reviews.map((r) => {
          const s = r.summary;
          const failedGates = r.gates.filter((g) => !g.passed).map((g) => g.name);
          return (
            <section
              key={s.id}
              className="card compare-column"
              data-attempt={s.id}
              data-state={s.state}
            >
              <h2>
                <code>{s.worker}</code>
              </h2>
              <dl className="facts">
                <dt>State</dt>
                <dd>
                  <StatePill word={attemptWord(s.state)} />
                </dd>
                <dt>Change</dt>
                <dd>
                  {s.filesChanged ?? 0} {(s.filesChanged ?? 0) === 1 ? "file" : "files"}{" "}
                  <span className="add">+{s.additions ?? 0}</span>{" "}
                  <span className="del">−{s.deletions ?? 0}</span>
                </dd>
                <dt>Gates</dt>
                <dd data-gates={s.id}>
                  {r.gates.length === 0
                    ? "—"
                    : failedGates.length === 0
                      ? "all passed"
                      : `blocked: ${failedGates.join(", ")}`}
                </dd>
                <dt>Verification</dt>
                <dd>
                  {r.verification
                    ? `${r.verification.passed ? "passed" : "failed"} in ${formatElapsed(r.verification.durationMs)}`
                    : "—"}
                </dd>
                <dt>Cost</dt>
                <dd>{formatCost(s.costUsd, r.usage?.estimated ?? false)}</dd>
                <dt>Time</dt>
                <dd>{formatElapsed(s.elapsedMs)}</dd>
              </dl>
              {s.error && <p className="error small">{s.error.message}</p>}
              <div className="form-actions">
                <a className="small" href={reviewHash({ view: "attempt", id: s.id })}>
                  Open
                </a>
                <span className="grow" />
                <button
                  type="button"
                  className="primary"
                  data-pick={s.id}
                  disabled={busy || decided || !r.canApprove || s.live || commit.trim() === ""}
                  title={approveBlockedReason(r) ?? undefined}
                  onClick={() => void pick(s.id)}
                >
                  Pick this one
                </button>
              </div>
              {r.diff && (
                <DiffPane
                  diff={r.diff}
                  loadFile={(path) => reviewIpc.fileDiff(s.id, path, "base")}
                  compact
                />
              )}
            </section>
          );
        })}
      </div>
    </div>
  );
}
