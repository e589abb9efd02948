// "Why this score": a category score taken apart into its weighted inputs, the inputs it
// lacked, and its coverage. Pure; the weights come from the engine's own data file.
import weightsFile from "../../../../crates/core/data/category_weights.json";
import type { BenchmarkValue, Category, CategoryScore } from "../../ipc";
import { CATEGORY_LABEL, formatScore, formatScore1, formatShare, formatWeight } from "./format";
import { metricInfo } from "./metrics";

/** Weights of one category by metric id, as in crates/core/data/category_weights.json. */
export type CategoryWeights = Readonly<Record<string, number>>;

/** The weights of every category, from the engine's data file. */
export const CATEGORY_WEIGHTS: Readonly<Partial<Record<Category, CategoryWeights>>> =
  Object.fromEntries(
    Object.entries(weightsFile.categories).map(([category, spec]) => [
      category,
      spec.weights as CategoryWeights,
    ]),
  );

/** The least coverage for which the engine gives a score at all. */
export const MIN_COVERAGE: number = weightsFile.minCoverage;

export interface ExplainedInput {
  metric: string;
  label: string;
  weight: number;
  /** 0–100; `null` for inputs the model lacks. */
  normalized: number | null;
  /** weight × normalized; `null` for missing inputs. */
  product: number | null;
  /** Share of the score this input contributed (product / Σ products). */
  share: number | null;
  /** Why a listed input did not count: no value at all, or a value that is not normalized. */
  missing: "noData" | "notNormalized" | null;
}

export interface Explanation {
  category: Category;
  score: number;
  coverage: number;
  /** Σ weight of the inputs that had data. */
  usedWeight: number;
  /** Σ weight of every input the category lists. */
  totalWeight: number;
  /** Used inputs first (by weight, then label), then the missing ones. */
  inputs: ExplainedInput[];
  /** `coding 81 = (3×80.9 + 2×75.2) / 5` */
  formula: string;
  /** `coverage 33%: 5 of 15 weight had data` */
  coverageText: string;
}

/**
 * Explains `score` for `category`. `benchmarks` (the card's) tell a missing input with a raw
 * value that is not normalized from one with no value. The total weight comes from the
 * weights file when it agrees with the engine's coverage, and is derived from the coverage
 * (used ÷ coverage) otherwise, so the numbers shown always add up to the engine's.
 */
export function explainScore(
  category: Category,
  score: CategoryScore,
  benchmarks: readonly BenchmarkValue[],
  weights: CategoryWeights = CATEGORY_WEIGHTS[category] ?? {},
): Explanation {
  const used: ExplainedInput[] = score.inputs.map((input) => ({
    metric: input.metric,
    label: metricInfo(input.metric).label,
    weight: input.weight ?? 0,
    normalized: input.normalized,
    product: input.normalized === null ? null : (input.weight ?? 0) * input.normalized,
    share: null,
    missing: null,
  }));
  const productSum = used.reduce((sum, i) => sum + (i.product ?? 0), 0);
  for (const input of used) {
    input.share = productSum > 0 && input.product !== null ? input.product / productSum : null;
  }
  const usedIds = new Set(used.map((i) => i.metric));
  const raw = new Map(benchmarks.map((b) => [b.metric, b]));
  const missing: ExplainedInput[] = Object.entries(weights)
    .filter(([metric]) => !usedIds.has(metric))
    .map(([metric, weight]) => ({
      metric,
      label: metricInfo(metric).label,
      weight,
      normalized: null,
      product: null,
      share: null,
      missing: raw.has(metric) ? ("notNormalized" as const) : ("noData" as const),
    }));
  const byWeight = (a: ExplainedInput, b: ExplainedInput) =>
    b.weight - a.weight || a.label.localeCompare(b.label);
  used.sort(byWeight);
  missing.sort(byWeight);

  const usedWeight = used.reduce((sum, i) => sum + i.weight, 0);
  const coverage = score.coverage ?? 0;
  const fileTotal = Object.values(weights).reduce((sum, w) => sum + w, 0);
  const agrees = fileTotal > 0 && Math.abs(usedWeight / fileTotal - coverage) < 1e-6;
  const totalWeight = agrees || coverage <= 0 ? fileTotal : usedWeight / coverage;
  const value = score.score ?? 0;

  const terms = used.map((i) => `${formatWeight(i.weight)}×${formatScore1(i.normalized)}`);
  const formula = `${CATEGORY_LABEL[category].toLowerCase()} ${formatScore(value)} = (${terms.join(
    " + ",
  )}) / ${formatWeight(usedWeight)}`;
  const coverageText = `coverage ${formatShare(coverage)}: ${formatWeight(
    usedWeight,
  )} of the category's ${formatWeight(totalWeight)} weight had data`;
  return {
    category,
    score: value,
    coverage,
    usedWeight,
    totalWeight,
    inputs: [...used, ...missing],
    formula,
    coverageText,
  };
}
