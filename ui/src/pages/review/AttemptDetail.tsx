import { useCallback, useEffect, useState } from "react";
import { StatePill } from "../../components/StatePill";
import {
  type AttemptError,
  type AttemptFeedItem,
  type AttemptReview,
  describeError,
  type LineComment,
  reviewEvents,
  reviewIpc,
} from "../../ipc";
import { attemptWord } from "../../states";
import { ConfinementBadge, ConfinementPanel } from "./ConfinementPanel";
import { DiffPane } from "./diff/DiffPane";
import { failureDetail, failureTitle, formatCost, formatElapsed, taskTitle } from "./format";
import { GatesPanel } from "./GatesPanel";
import { ReviewActions } from "./ReviewActions";
import { reviewHash } from "./route";
import { SelfReviewPanel } from "./SelfReviewPanel";
import { applyTranscript, EMPTY_TRANSCRIPT, Transcript, type TranscriptState } from "./Transcript";

/** One attempt: live output while it runs, then its diff, gates, transcript and the decision. */
export function AttemptDetail({ id, now }: { id: string; now: () => number }) {
  const [review, setReview] = useState<AttemptReview | null>(null);
  const [transcript, setTranscript] = useState<TranscriptState>(EMPTY_TRANSCRIPT);
  const [error, setError] = useState<string | null>(null);
  const [comments, setComments] = useState<LineComment[]>([]);
  const [tick, setTick] = useState(0);
  const [against, setAgainst] = useState<"base" | "previous">("base");
  // Bumped when a recover re-queues the attempt, so its log is followed again from the start.
  const [follow, setFollow] = useState(0);

  const reload = useCallback(async () => {
    try {
      setReview(await reviewIpc.review(id));
      setError(null);
    } catch (e) {
      setError(describeError(e).message);
    }
  }, [id]);
  const loadFile = useCallback((path: string) => reviewIpc.fileDiff(id, path, "base"), [id]);
  const loadPreviousFile = useCallback(
    (path: string) => reviewIpc.fileDiff(id, path, "previous"),
    [id],
  );

  // The log replays from the last entry this view holds, then streams while the attempt lives.
  useEffect(() => {
    let gone = false;
    void follow;
    setTranscript(EMPTY_TRANSCRIPT);
    setComments([]);
    setReview(null);
    void reload();
    // The engine's feed sends each stored entry once, in order, and says when the attempt's
    // state changes (also when another process runs it): that is when the review is re-read.
    let opened = false;
    const onItem = (item: AttemptFeedItem) => {
      if (gone) return;
      if (item.type === "log") {
        const update = item.transcript;
        if (update) setTranscript((prev) => applyTranscript(prev, update));
      } else if (item.type === "state") {
        // The first one says where the attempt stood when the page opened: read above.
        if (opened) void reload();
        opened = true;
      }
    };
    reviewIpc.watch(id, 0, onItem).catch((e) => !gone && setError(describeError(e).message));
    const unlisten = reviewEvents.onAttemptState((change) => {
      if (!gone && change.attemptId === id) void reload();
    });
    return () => {
      gone = true;
      void unlisten.then((stop) => stop());
    };
  }, [id, reload, follow]);

  const live = review?.summary.live ?? false;
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    return () => clearInterval(timer);
  }, [live]);

  if (error && !review) {
    return (
      <div className="card error-card" id="attempt-error">
        <p className="error">{error}</p>
      </div>
    );
  }
  if (!review) {
    return <p className="muted">Loading the attempt…</p>;
  }
  const { summary } = review;
  // While live the clock runs here (re-rendered each second by `tick`).
  const elapsed = live && tick >= 0 ? now() - (summary.createdMs ?? now()) : summary.elapsedMs;

  const cancel = async () => {
    try {
      setReview({ ...review, summary: await reviewIpc.cancel(id) });
    } catch (e) {
      setError(describeError(e).message);
    }
  };

  const recover = async () => {
    try {
      const next = await reviewIpc.recover(id);
      setReview(next);
      // Re-queued (its worker never ran): it runs again, so follow its log as for a start.
      if (next.summary.live) setFollow((n) => n + 1);
    } catch (e) {
      setError(describeError(e).message);
    }
  };

  const addLineComment = (path: string, line: number) => {
    if (summary.state !== "review") return;
    if (comments.some((c) => c.path === path && c.line === line)) return;
    setComments([...comments, { path, line, text: "" }]);
  };

  return (
    <div
      className="attempt-detail"
      id="attempt-detail"
      data-attempt={summary.id}
      data-state={summary.state}
    >
      <header className="attempt-header">
        <div>
          <p className="eyebrow">
            <a href={reviewHash({ view: "list" })}>Review</a> / attempt <code>{summary.id}</code>
          </p>
          <h1 title={summary.task}>{taskTitle(summary.task)}</h1>
          <p className="muted small">
            <code>{summary.worker}</code>
            {summary.workerVersion ? ` ${summary.workerVersion}` : ""} · {summary.repo} · base{" "}
            <code>{summary.base.slice(0, 10)}</code>
            {summary.targetBranch ? (
              <>
                {" "}
                on <code>{summary.targetBranch}</code>
              </>
            ) : null}
            {summary.parent && (
              <>
                {" "}
                · revises{" "}
                <a href={reviewHash({ view: "attempt", id: summary.parent })}>{summary.parent}</a>
              </>
            )}
            {summary.compare && (
              <>
                {" "}
                · <a href={reviewHash({ view: "compare", id: summary.compare })}>compare group</a>
              </>
            )}
          </p>
        </div>
        <span className="grow" />
        <div className="attempt-facts">
          <StatePill word={attemptWord(summary.state)} id="attempt-state" />
          <ConfinementBadge mode={summary.confinement} />
          <span className="small" id="attempt-elapsed">
            {formatElapsed(elapsed)}
          </span>
          {summary.costUsd != null && (
            <span className="small" id="attempt-cost">
              {formatCost(summary.costUsd, review.usage?.estimated ?? false)}
            </span>
          )}
          {summary.state === "interrupted" && (
            <button
              type="button"
              className="primary"
              id="recover-attempt"
              onClick={() => void recover()}
            >
              Recover
            </button>
          )}
          {live && (
            <button
              type="button"
              className="danger"
              id="cancel-attempt"
              onClick={() => void cancel()}
            >
              Cancel
            </button>
          )}
        </div>
      </header>

      {summary.error && <Failure error={summary.error} />}
      {error && <p className="error">{error}</p>}
      <Decision review={review} />

      <div className="attempt-grid">
        <div className="attempt-main">
          {review.previous && review.diff && (
            <fieldset className="diff-against" aria-label="Diff against">
              <button
                type="button"
                aria-pressed={against === "base"}
                onClick={() => setAgainst("base")}
              >
                Against base
              </button>
              <button
                type="button"
                aria-pressed={against === "previous"}
                onClick={() => setAgainst("previous")}
              >
                Against previous attempt
              </button>
            </fieldset>
          )}
          {against === "previous" && review.previous && review.diff ? (
            // Line comments go on the diff against the base: that is what the worker revises.
            <DiffPane diff={review.previous} loadFile={loadPreviousFile} />
          ) : review.diff ? (
            <DiffPane
              diff={review.diff}
              loadFile={loadFile}
              keyboard
              comments={comments.filter((c) => c.text.trim() !== "")}
              onLineClick={summary.state === "review" ? addLineComment : undefined}
            />
          ) : (
            <div className="card">
              <p className="muted">
                {live ? "The diff is captured when the worker stops." : "No diff was captured."}
              </p>
            </div>
          )}
          <Transcript transcript={transcript} follow={live} />
        </div>
        <div className="attempt-side">
          <ReviewActions
            review={review}
            lineComments={comments}
            onLineCommentsChange={setComments}
            onDecided={(next) => {
              if (next.id !== id) {
                window.location.hash = reviewHash({ view: "attempt", id: next.id });
              } else if (next.review) {
                setReview(next.review);
              }
            }}
          />
          <GatesPanel review={review} />
          {review.selfReview && <SelfReviewPanel review={review.selfReview} />}
          <ConfinementPanel report={review.confinement} />
        </div>
      </div>
    </div>
  );
}

/** Why the attempt stopped: a heading in words, then the engine's message when it adds one. */
function Failure({ error }: { error: AttemptError }) {
  const title = failureTitle(error.code);
  const detail = failureDetail(error);
  const canceled = error.code === "canceled";
  return (
    <div
      className={`card error-card${canceled ? " canceled-card" : ""}`}
      id="attempt-failure"
      data-code={error.code}
    >
      <p className={canceled ? "warn-text" : "error"}>
        <strong>{title}</strong>
        {detail ? `: ${detail}` : "."}
      </p>
    </div>
  );
}

function Decision({ review }: { review: AttemptReview }) {
  const { decision, integration } = review;
  if (!decision) return null;
  return (
    <div className={`card decision-card ${decision.kind}`} id="attempt-decision">
      {decision.kind === "approved" && (
        <p>
          Approved
          {decision.commit ? (
            <>
              {" "}
              as <code id="approved-commit">{decision.commit.slice(0, 12)}</code>
            </>
          ) : null}
          {integration ? (
            <>
              , landed on <code>{integration.branch}</code> (
              {integration.fastForward ? "fast-forward" : "merge"}:{" "}
              <code>{integration.old.slice(0, 10)}</code> →{" "}
              <code id="integrated-commit">{integration.new.slice(0, 10)}</code>)
            </>
          ) : (
            ", not integrated yet"
          )}
          . Message: “{decision.message}”
        </p>
      )}
      {decision.kind === "rejected" && <p>Rejected: {decision.reason}</p>}
      {decision.kind === "changesRequested" && (
        <p>
          Changes requested: {decision.comment || `${decision.lines.length} line comments`} →{" "}
          <a href={reviewHash({ view: "attempt", id: decision.nextAttempt })}>the revision</a>
        </p>
      )}
    </div>
  );
}
