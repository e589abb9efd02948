// "Why this score" as text: the engine's breakdown of a category score (computed in core,
// next to the score itself) written out. Pure; nothing here recomputes a score.
import type { ScoreBreakdown } from "../../ipc";
import { CATEGORY_LABEL, formatScore, formatScore1, formatShare, formatWeight } from "./format";

/** The terms that counted, in the engine's order (heaviest first). */
export function usedTerms(breakdown: ScoreBreakdown) {
  return breakdown.terms.filter((t) => t.status === "used");
}

/** `coding 70 = (2×80.0 + 1×50.0) / 3` */
export function formulaText(breakdown: ScoreBreakdown): string {
  const terms = usedTerms(breakdown).map(
    (t) => `${formatWeight(t.weight ?? 0)}×${formatScore1(t.normalized)}`,
  );
  return `${CATEGORY_LABEL[breakdown.category].toLowerCase()} ${formatScore(
    breakdown.score,
  )} = (${terms.join(" + ")}) / ${formatWeight(breakdown.usedWeight ?? 0)}`;
}

/** `coverage 30%: 3 of the category's 10 weight had data` */
export function coverageText(breakdown: ScoreBreakdown): string {
  return `coverage ${formatShare(breakdown.coverage)}: ${formatWeight(
    breakdown.usedWeight ?? 0,
  )} of the category's ${formatWeight(breakdown.totalWeight ?? 0)} weight had data`;
}
