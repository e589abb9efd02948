import { useEffect, useRef, useState } from "react";
import { tinykeys } from "tinykeys";
import { type AttemptReview, describeError, type LineComment, reviewIpc } from "../../ipc";
import { DECISION_KEYS, single } from "../../keys/shortcuts";
import { onDecisionRequest, requestDecision } from "../../palette/commands";
import { approveBlockedReason, defaultCommitMessage } from "./format";

interface Props {
  review: AttemptReview;
  lineComments: LineComment[];
  onLineCommentsChange: (next: LineComment[]) => void;
  /** After a decision: the attempt to show next (the same one, or the revision). */
  onDecided: (next: { id: string; review?: AttemptReview }) => void;
}

type Mode = "approve" | "reject" | "changes";

/** What an error code means to a reviewer, in one sentence. */
function explain(code: string, message: string): string {
  switch (code) {
    case "changed":
      return `The worktree changed after Switchyard verified it, so approving is blocked. ${message}`;
    case "conflict":
      return `The change does not merge cleanly; your branch and working tree were left as they were. ${message}`;
    case "gateFailed":
      return `A gate blocks this attempt. ${message}`;
    default:
      return message;
  }
}

/** Approve (commit message), Reject (reason) or Request changes (line and general comments). */
export function ReviewActions({ review, lineComments, onLineCommentsChange, onDecided }: Props) {
  const { summary } = review;
  const [mode, setMode] = useState<Mode>("approve");
  const [message, setMessage] = useState(() => defaultCommitMessage(summary.task));
  const [reason, setReason] = useState("");
  const [comment, setComment] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Approving from the keyboard or the palette asks first, naming where the change lands.
  const [confirming, setConfirming] = useState(false);
  const [focusField, setFocusField] = useState<Mode | null>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const inReview = summary.state === "review";

  useEffect(() => {
    if (!inReview) return;
    return onDecisionRequest((decision) => {
      setMode(decision);
      setConfirming(decision === "approve");
      setFocusField(decision);
    });
  }, [inReview]);

  useEffect(() => {
    if (focusField === "reject") reasonRef.current?.focus();
    if (focusField === "changes") commentRef.current?.focus();
  }, [focusField]);

  useEffect(() => {
    if (!inReview) return;
    return tinykeys(window, {
      [DECISION_KEYS.approve]: single(() => requestDecision("approve")),
      [DECISION_KEYS.reject]: single((event) => {
        event.preventDefault();
        requestDecision("reject");
      }),
      [DECISION_KEYS.changes]: single((event) => {
        event.preventDefault();
        requestDecision("changes");
      }),
    });
  }, [inReview]);

  // A new line comment (a click on a line, or `c` on the focused one) opens Request changes
  // with its field focused.
  // Set when a comment was added: the newest comment's field takes the focus once it shows.
  const focusNewest = useRef(false);
  const commentCount = useRef(lineComments.length);
  useEffect(() => {
    const grew = lineComments.length > commentCount.current;
    commentCount.current = lineComments.length;
    if (!grew) return;
    setMode("changes");
    setConfirming(false);
    focusNewest.current = true;
  }, [lineComments.length]);
  const newestField = (input: HTMLInputElement | null) => {
    if (input && focusNewest.current) {
      focusNewest.current = false;
      input.focus();
    }
  };

  if (!inReview) {
    return null;
  }
  const target = summary.targetBranch ?? "the branch it started from";

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      const { code, message: text } = describeError(e);
      setError(explain(code, text));
    } finally {
      setBusy(false);
    }
  };

  const approve = () =>
    run(async () => {
      setConfirming(false);
      const next = await reviewIpc.approve(summary.id, message.trim());
      onDecided({ id: summary.id, review: next });
    });
  const reject = () =>
    run(async () => {
      const next = await reviewIpc.reject(summary.id, reason.trim());
      onDecided({ id: summary.id, review: next });
    });
  const requestChanges = () =>
    run(async () => {
      const next = await reviewIpc.requestChanges(summary.id, comment.trim(), lineComments);
      onLineCommentsChange([]);
      onDecided({ id: next.id });
    });

  return (
    <section className="card review-actions" id="review-actions" aria-label="Decision">
      <div className="tabs" role="tablist" aria-label="Decision">
        {(
          [
            ["approve", "Approve"],
            ["changes", `Request changes${lineComments.length ? ` (${lineComments.length})` : ""}`],
            ["reject", "Reject"],
          ] as const
        ).map(([id, title]) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={mode === id}
            className={mode === id ? "active" : undefined}
            data-decision={id}
            onClick={() => setMode(id)}
          >
            {title}
          </button>
        ))}
      </div>

      {confirming && (
        <div
          className="confirm"
          id="approve-confirm"
          role="alertdialog"
          aria-modal="true"
          aria-labelledby="approve-confirm-title"
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.stopPropagation();
              setConfirming(false);
            }
          }}
        >
          <p id="approve-confirm-title">
            Approve attempt <code>{summary.id}</code> and land it on <code>{target}</code>? Nothing
            is pushed.
          </p>
          {!review.canApprove && <p className="error small">{approveBlockedReason(review)}</p>}
          <div className="form-actions">
            <button
              type="button"
              className="primary"
              id="approve-confirm-button"
              // biome-ignore lint/a11y/noAutofocus: the confirmation exists to be answered from the keyboard
              autoFocus={review.canApprove}
              disabled={busy || !review.canApprove || message.trim() === ""}
              onClick={() => void approve()}
            >
              Approve and land on {target}
            </button>
            <button
              type="button"
              className="ghost"
              id="approve-confirm-cancel"
              // biome-ignore lint/a11y/noAutofocus: when approving is blocked, Cancel is the answer
              autoFocus={!review.canApprove}
              onClick={() => setConfirming(false)}
            >
              Cancel
            </button>
          </div>
        </div>
      )}

      {mode === "approve" && (
        <div className="decision">
          <label htmlFor="approve-message">Commit message</label>
          <textarea
            id="approve-message"
            rows={3}
            value={message}
            onChange={(e) => setMessage(e.target.value)}
          />
          {!review.canApprove && (
            <p className="error small" id="approve-blocked">
              {approveBlockedReason(review)}
            </p>
          )}
          <p className="muted small">
            Switchyard re-hashes the worktree, commits exactly the verified change and lands it on{" "}
            <code>{target}</code> (fast-forward or a clean merge). Nothing is pushed.
          </p>
          <div className="form-actions">
            <button
              type="button"
              className="primary"
              id="approve-button"
              disabled={busy || !review.canApprove || message.trim() === ""}
              onClick={() => void approve()}
            >
              Approve and integrate
            </button>
          </div>
        </div>
      )}

      {mode === "changes" && (
        <div className="decision">
          <p className="muted small">Click a line of the diff to comment on it.</p>
          {lineComments.length > 0 && (
            <ul className="line-comments" id="line-comments">
              {lineComments.map((c, i) => (
                <li key={`${c.path}:${c.line}`}>
                  <code>
                    {c.path}:{c.line}
                  </code>
                  <input
                    ref={i === lineComments.length - 1 ? newestField : undefined}
                    aria-label={`Comment on ${c.path} line ${c.line}`}
                    value={c.text}
                    onChange={(e) =>
                      onLineCommentsChange(
                        lineComments.map((x, j) => (j === i ? { ...x, text: e.target.value } : x)),
                      )
                    }
                  />
                  <button
                    type="button"
                    className="ghost"
                    aria-label={`Remove comment on ${c.path} line ${c.line}`}
                    onClick={() => onLineCommentsChange(lineComments.filter((_, j) => j !== i))}
                  >
                    ×
                  </button>
                </li>
              ))}
            </ul>
          )}
          <label htmlFor="changes-comment">General comment</label>
          <textarea
            ref={commentRef}
            id="changes-comment"
            rows={3}
            value={comment}
            placeholder="What should the worker change?"
            onChange={(e) => setComment(e.target.value)}
          />
          <p className="muted small">
            A new attempt of <code>{summary.worker}</code> continues on the same worktree with these
            comments; this one is superseded.
          </p>
          <div className="form-actions">
            <button
              type="button"
              className="primary"
              id="request-changes-button"
              disabled={
                busy ||
                (comment.trim() === "" && lineComments.every((c) => c.text.trim() === "")) ||
                lineComments.some((c) => c.text.trim() === "")
              }
              onClick={() => void requestChanges()}
            >
              Request changes
            </button>
          </div>
        </div>
      )}

      {mode === "reject" && (
        <div className="decision">
          <label htmlFor="reject-reason">Reason</label>
          <textarea
            ref={reasonRef}
            id="reject-reason"
            rows={2}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
          <p className="muted small">
            The worktree and its branch are removed. Your repository is not touched.
          </p>
          <div className="form-actions">
            <button
              type="button"
              className="danger"
              id="reject-button"
              disabled={busy || reason.trim() === ""}
              onClick={() => void reject()}
            >
              Reject
            </button>
          </div>
        </div>
      )}

      {error && (
        <p className="error" id="decision-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
