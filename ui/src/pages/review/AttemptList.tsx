import { StatePill } from "../../components/StatePill";
import type { AttemptSummary } from "../../ipc";
import { attemptWord } from "../../states";
import { ago, formatCost, formatElapsed, orderForReview, taskTitle } from "./format";
import { reviewHash } from "./route";

/** Attempts awaiting review first (newest first), then running ones, then the recent rest. */
export function AttemptList({
  attempts,
  now,
}: {
  attempts: readonly AttemptSummary[];
  now: number;
}) {
  const { awaiting, live, recent } = orderForReview(attempts);
  if (attempts.length === 0) {
    return (
      <div className="card empty-state" id="review-empty">
        <h2>No attempts yet</h2>
        <p className="muted">
          Send a coding task to a worker: it edits its own git worktree, Switchyard checks the
          result with its own gates and tests, and nothing reaches your branch until you approve it.
        </p>
        <a className="button primary" href={reviewHash({ view: "new" })} id="empty-new-task">
          New task
        </a>
      </div>
    );
  }
  return (
    <div className="attempt-lists">
      <Group
        id="awaiting"
        title="Awaiting review"
        attempts={awaiting}
        now={now}
        empty="Nothing is waiting for you."
      />
      {live.length > 0 && <Group id="running" title="Running" attempts={live} now={now} />}
      {recent.length > 0 && (
        <Group id="recent" title="Recent" attempts={recent.slice(0, 50)} now={now} />
      )}
    </div>
  );
}

function Group({
  id,
  title,
  attempts,
  now,
  empty,
}: {
  id: string;
  title: string;
  attempts: AttemptSummary[];
  now: number;
  empty?: string;
}) {
  return (
    <section className="card attempt-group" id={`attempts-${id}`} aria-label={title}>
      <h2>
        {title} <span className="muted small">{attempts.length}</span>
      </h2>
      {attempts.length === 0 ? (
        <p className="muted small">{empty}</p>
      ) : (
        <table className="attempt-table">
          <thead>
            <tr>
              <th>Task</th>
              <th>Worker</th>
              <th>State</th>
              <th>Gates</th>
              <th className="num">Change</th>
              <th className="num">Time</th>
              <th className="num">Cost</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {attempts.map((a) => (
              <tr key={a.id} data-attempt={a.id} data-state={a.state}>
                <td>
                  <a href={reviewHash({ view: "attempt", id: a.id })}>{taskTitle(a.task, 70)}</a>
                  {a.compare && (
                    <a
                      className="small compare-link"
                      href={reviewHash({ view: "compare", id: a.compare })}
                    >
                      {" "}
                      compare
                    </a>
                  )}
                  <div className="muted small">{a.repo.split("/").pop()}</div>
                </td>
                <td className="attempt-worker">
                  <code className="small" title={a.worker}>
                    {a.worker}
                  </code>
                </td>
                <td>
                  <StatePill word={attemptWord(a.state)} />
                </td>
                <td>
                  {a.gatesPassed == null ? (
                    <span className="muted">—</span>
                  ) : a.state === "failed" && !a.gatesPassed ? (
                    // The worker failed: verification did not run, so "blocked" would mislead.
                    <span className="pill" title="the worker failed before every gate ran">
                      incomplete
                    </span>
                  ) : a.gatesPassed ? (
                    <span className="pill ok">passed</span>
                  ) : (
                    <span className="pill fail">blocked</span>
                  )}
                </td>
                <td className="num small">
                  {a.filesChanged == null ? (
                    "—"
                  ) : (
                    <>
                      {a.filesChanged} f <span className="add">+{a.additions ?? 0}</span>{" "}
                      <span className="del">−{a.deletions ?? 0}</span>
                    </>
                  )}
                </td>
                <td className="num small">{formatElapsed(a.elapsedMs)}</td>
                <td className="num small">{formatCost(a.costUsd)}</td>
                <td className="small muted">{ago(a.createdMs, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
