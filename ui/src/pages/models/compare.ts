// Side-by-side rows for 2–5 model cards, with the best value of each row marked and rows
// whose values differ flagged. Pure.
import type { ModelCard } from "../../ipc";
import {
  CATEGORIES,
  CATEGORY_LABEL,
  formatContext,
  formatEfficiency,
  formatPrice,
  formatScore,
  formatSeconds,
  formatShare,
  formatSpeed,
  SOURCE_LABEL,
  TAG_LABEL,
  TIER_LABEL,
  UNKNOWN,
} from "./format";

/** Which way a numeric row is better; `null` for facts that have no better (provider, tags). */
export type Better = "higher" | "lower" | null;

export interface CompareCell {
  text: string;
  /** What the best mark compares; `null` when unknown or not comparable. */
  value: number | null;
  best: boolean;
  /** Secondary text under the value (a score's coverage). */
  note?: string;
}

export interface CompareRow {
  key: string;
  label: string;
  group: "facts" | "scores" | "efficiency";
  better: Better;
  cells: CompareCell[];
  /** Whether the models differ in this row (compared on the shown text). */
  differs: boolean;
}

const MAX_MODELS = 5;

/** Indices of the best values: only when at least two are known and they are not all equal. */
export function bestIndices(values: readonly (number | null)[], better: Better): Set<number> {
  const known = values
    .map((value, index) => ({ value, index }))
    .filter(
      (v): v is { value: number; index: number } => v.value !== null && Number.isFinite(v.value),
    );
  if (better === null || known.length < 2) {
    return new Set();
  }
  const pick = better === "higher" ? Math.max : Math.min;
  const best = pick(...known.map((k) => k.value));
  if (known.every((k) => k.value === best)) {
    return new Set();
  }
  return new Set(known.filter((k) => k.value === best).map((k) => k.index));
}

function row(
  key: string,
  label: string,
  group: CompareRow["group"],
  better: Better,
  cells: Omit<CompareCell, "best">[],
): CompareRow {
  const best = bestIndices(
    cells.map((c) => c.value),
    better,
  );
  const texts = cells.map((c) => c.text);
  return {
    key,
    label,
    group,
    better,
    cells: cells.map((c, i) => ({ ...c, best: best.has(i) })),
    differs: texts.some((t) => t !== texts[0]),
  };
}

function numeric(value: number | null | undefined, text: string): Omit<CompareCell, "best"> {
  return { value: value ?? null, text };
}

function sourcesOf(card: ModelCard): string {
  const names = [...new Set(card.benchmarks.map((b) => b.source))]
    .filter((s) => s !== "openRouter")
    .map((s) => SOURCE_LABEL[s]);
  return names.length === 0 ? "none" : names.sort().join(", ");
}

/**
 * The rows of the compare view for `cards` (the first five). Category rows appear when at
 * least one model has a score in the category.
 */
export function compareRows(cards: readonly ModelCard[]): CompareRow[] {
  const models = cards.slice(0, MAX_MODELS);
  const rows: CompareRow[] = [
    row(
      "provider",
      "Provider",
      "facts",
      null,
      models.map((m) => ({ value: null, text: m.provider })),
    ),
    row(
      "tier",
      "Tier",
      "facts",
      null,
      models.map((m) => ({ value: null, text: TIER_LABEL[m.tier] })),
    ),
    row(
      "blended",
      "Blended $/M (3:1)",
      "facts",
      "lower",
      models.map((m) => numeric(m.blendedPerM, formatPrice(m.blendedPerM))),
    ),
    row(
      "prompt",
      "Input $/M",
      "facts",
      "lower",
      models.map((m) => numeric(m.pricing.promptPerM, formatPrice(m.pricing.promptPerM))),
    ),
    row(
      "completion",
      "Output $/M",
      "facts",
      "lower",
      models.map((m) => numeric(m.pricing.completionPerM, formatPrice(m.pricing.completionPerM))),
    ),
    row(
      "context",
      "Context",
      "facts",
      "higher",
      models.map((m) => numeric(m.contextLength, formatContext(m.contextLength))),
    ),
    row(
      "speed",
      "Output speed",
      "facts",
      "higher",
      models.map((m) => numeric(m.outputSpeed, formatSpeed(m.outputSpeed))),
    ),
    row(
      "ttft",
      "Time to first token",
      "facts",
      "lower",
      models.map((m) => numeric(m.ttftSeconds, formatSeconds(m.ttftSeconds))),
    ),
    row(
      "input",
      "Input modalities",
      "facts",
      null,
      models.map((m) => ({ value: null, text: m.inputModalities.join(", ") || UNKNOWN })),
    ),
    row(
      "tags",
      "Tags",
      "facts",
      null,
      models.map((m) => ({
        value: null,
        text: m.tags.map((t) => TAG_LABEL[t]).join(", ") || UNKNOWN,
      })),
    ),
    row(
      "sources",
      "Benchmark sources",
      "facts",
      null,
      models.map((m) => ({ value: null, text: sourcesOf(m) })),
    ),
  ];
  for (const category of CATEGORIES) {
    if (!models.some((m) => m.categories[category])) {
      continue;
    }
    rows.push(
      row(
        `score.${category}`,
        CATEGORY_LABEL[category],
        "scores",
        "higher",
        models.map((m) => {
          const score = m.categories[category];
          return score
            ? {
                value: score.score,
                text: formatScore(score.score),
                note: `${formatShare(score.coverage)} coverage`,
              }
            : { value: null, text: UNKNOWN, note: "no evidence" };
        }),
      ),
    );
  }
  for (const category of CATEGORIES) {
    if (!models.some((m) => m.efficiency[category] != null)) {
      continue;
    }
    rows.push(
      row(
        `efficiency.${category}`,
        CATEGORY_LABEL[category],
        "efficiency",
        "higher",
        models.map((m) =>
          numeric(m.efficiency[category], formatEfficiency(m.efficiency[category])),
        ),
      ),
    );
  }
  return rows;
}
