import type { SelfReview } from "../../ipc";
import { formatCost } from "../runs/format";

const SECTIONS = [
  ["Risks", "risks"],
  ["Files touched", "filesTouched"],
  ["Tests added", "testsAdded"],
] as const;

/**
 * The worker's own reading of its change, shown under Switchyard's gates and labelled as the
 * worker's: it never decides anything (approve follows the gates alone).
 */
export function SelfReviewPanel({ review }: { review: SelfReview }) {
  const by = review.model ?? "the worker";
  return (
    <section
      className="card self-review"
      id="self-review"
      data-state={review.state}
      aria-label="Self-review"
    >
      <div className="card-title-row">
        <h2>Self-review</h2>
        <span className="grow" />
        <span className="pill">{review.state === "written" ? "by the worker" : "none"}</span>
      </div>
      <p className="muted small">
        {review.state === "written"
          ? `${by} re-read its change after verification. This is its own reading, not a check: the gates above decide.`
          : review.message}
        {review.costUsd != null && ` It cost ${formatCost(review.costUsd)}.`}
      </p>
      {review.state === "written" &&
        SECTIONS.map(([title, key]) => (
          <div key={key} className="self-review-section">
            <h3>{title}</h3>
            {review[key].length === 0 ? (
              <p className="muted small">none named</p>
            ) : (
              <ul id={`self-review-${key}`}>
                {review[key].map((item, i) => (
                  // Items may repeat; their order is what they are.
                  // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list, never reordered
                  <li key={i}>{item}</li>
                ))}
              </ul>
            )}
          </div>
        ))}
      {review.truncated > 0 && (
        <p className="muted small">{review.truncated} more lines were cut (50 at most).</p>
      )}
    </section>
  );
}
