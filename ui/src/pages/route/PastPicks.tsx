import { formatTime } from "../models/format";
import { categoryLabel } from "./format";
import { ModelLink } from "./ModelLink";
import { Stars } from "./Stars";
import type { PastPick } from "./types";

interface Props {
  picks: PastPick[] | null;
  error: string | null;
  onRate: (pick: PastPick, rating: number) => void;
  onRetry: () => void;
}

/** Recent picks with their ratings; rating one teaches future picks in its category. */
export function PastPicks({ picks, error, onRate, onRetry }: Props) {
  return (
    <div className="card past-picks" id="route-past-picks">
      <div className="card-title-row">
        <h2>Past picks</h2>
        <span className="muted small">
          Ratings blend with benchmarks: the more, the more they count.
        </span>
      </div>
      {error ? (
        <div className="error-line">
          <p className="error small">{error}</p>
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        </div>
      ) : picks === null ? (
        <p className="muted small">Loading…</p>
      ) : picks.length === 0 ? (
        <p className="muted small">
          None yet. Your picks appear here to rate once you have tried them.
        </p>
      ) : (
        <ul className="past-list">
          {picks.map((p) => (
            <li key={String(p.id)} data-pick={String(p.id)}>
              <div className="past-main">
                <span className="past-task" title={p.task}>
                  {p.task}
                </span>
                <span className="small">
                  <ModelLink id={p.modelId} name={p.modelName} />
                  <span className="muted">
                    {" "}
                    · {categoryLabel(p.category)} · {formatTime(p.createdAt)}
                  </span>
                </span>
              </div>
              <Stars value={p.rating} onRate={(r) => onRate(p, r)} label={`Rate ${p.modelName}`} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
