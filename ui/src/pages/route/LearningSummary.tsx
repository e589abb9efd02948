import type { LearningSavings } from "../../ipc";
import { formatCost, formatSavings } from "../runs/format";

/** One sentence per reference: what the outcomes cost, and the same tokens elsewhere. */
export function savingsLines(savings: LearningSavings): string[] {
  if (savings.outcomes === 0) return [];
  const cost = savings.costUsd ?? 0;
  const against = (label: string, usd: number | null) => {
    if (usd === null) return `${label}: unknown (a price is missing)`;
    const saved = usd - cost;
    const verdict = saved < 0 ? `spent ${formatCost(-saved)} more` : formatSavings(saved);
    return `${label} ${formatCost(usd)} (${verdict})`;
  };
  return [
    `${savings.outcomes} outcome${savings.outcomes === 1 ? "" : "s"} cost ${formatCost(cost)}`,
    against("the same tokens would have cost on the static picks", savings.staticUsd),
    against("on the premium baseline", savings.premiumUsd),
  ];
}

/** What routing's recorded outcomes cost against the static picks and all-premium. */
export function LearningSummary({ savings, id }: { savings: LearningSavings; id: string }) {
  const lines = savingsLines(savings);
  if (lines.length === 0) return null;
  return (
    <p className="muted small learning-savings" id={id}>
      {lines.join("; ")}.
    </p>
  );
}
