import { memo } from "react";
import { formatCost, formatSavings, meterShares } from "./format";

interface Props {
  /** The run may still spend (savings are known once its calls settle). */
  live: boolean;
  spentUsd: number | null;
  reservedUsd: number | null;
  capUsd: number | null;
  savingsUsd: number | null;
  baselineModel: string | null;
  baselineUsd: number | null;
  /** The same tokens on each step's static pick (routing before it learned). */
  staticUsd: number | null;
}

/** Spent and in-flight reservations against the hard cap, and savings against the baseline. */
export const CostMeter = memo(function CostMeter({
  live,
  spentUsd,
  reservedUsd,
  capUsd,
  savingsUsd,
  baselineModel,
  baselineUsd,
  staticUsd,
}: Props) {
  const shares = meterShares(spentUsd, reservedUsd, capUsd);
  return (
    <div className="cost-meter" id="run-cost" data-spent={spentUsd ?? ""} data-cap={capUsd ?? ""}>
      <div className="meter-row">
        <span className="meter-figure">
          <strong id="run-spent">{formatCost(spentUsd)}</strong>
          <span className="muted"> of {formatCost(capUsd)} cap</span>
        </span>
        {(reservedUsd ?? 0) > 0 && (
          <span className="muted small" id="run-reserved">
            {formatCost(reservedUsd)} reserved by calls in flight
          </span>
        )}
        <span className="grow" />
        {savingsUsd != null && !(spentUsd === 0 && savingsUsd === 0) && (
          <span
            className={savingsUsd >= 0 ? "savings" : "over"}
            id="run-savings"
            title={`The same tokens on ${baselineModel ?? "the baseline"} would have cost ${formatCost(baselineUsd)}`}
          >
            {formatSavings(savingsUsd)}
          </span>
        )}
      </div>
      {/* The figures above say the same in words. */}
      <div className="meter" aria-hidden="true">
        <span className="meter-spent" style={{ width: `${shares.spent}%` }} />
        <span
          className="meter-reserved"
          style={{ left: `${shares.spent}%`, width: `${shares.reserved}%` }}
        />
      </div>
      {baselineModel && baselineUsd != null && (baselineUsd > 0 || (spentUsd ?? 0) > 0) && (
        <p className="muted small" id="run-baseline-note">
          Against <span className="mono">{baselineModel}</span>: the same tokens would have cost{" "}
          {formatCost(baselineUsd)}.
        </p>
      )}
      {baselineModel && (baselineUsd == null || (baselineUsd === 0 && !spentUsd)) && (
        <p className="muted small" id="run-baseline-note">
          Savings are measured against <span className="mono">{baselineModel}</span>
          {live ? " once its calls settle." : "; this run used no tokens."}
        </p>
      )}
      {staticUsd != null && spentUsd != null && (
        <p className="muted small" id="run-static-note">
          Against the static picks (each step's best-scored model before routing learned): the same
          tokens would have cost {formatCost(staticUsd)} ({formatSavings(staticUsd - spentUsd)}).
        </p>
      )}
      {!baselineModel && (
        <p className="muted small" id="run-baseline-note">
          No priced baseline model, so no savings figure (Settings → Runs).
        </p>
      )}
    </div>
  );
});
