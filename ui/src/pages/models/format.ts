// Formatting of catalog values for the table, the plot, the drawer and compare. Pure.
import type { Category, MatchRule, SourceId, Tag, Tier } from "../../ipc";

/** Shown wherever a value is unknown (never a made-up zero). */
export const UNKNOWN = "—";

/**
 * USD per million tokens: `free` for 0, two decimals from $1, two significant digits below
 * (`$0.15`, `$0.004`), none from $100.
 */
export function formatPrice(perM: number | null | undefined): string {
  if (perM === null || perM === undefined || !Number.isFinite(perM) || perM < 0) {
    return UNKNOWN;
  }
  if (perM === 0) {
    return "free";
  }
  if (perM >= 100) {
    return `$${Math.round(perM)}`;
  }
  if (perM >= 1) {
    return `$${perM.toFixed(2)}`;
  }
  return `$${Number(perM.toPrecision(2))}`;
}

/** Context length in tokens: `1M`, `1.5M`, `200k`, `131k`, `4k`, or the plain count below 1000. */
export function formatContext(tokens: number | null | undefined): string {
  if (tokens === null || tokens === undefined || !Number.isFinite(tokens) || tokens <= 0) {
    return UNKNOWN;
  }
  if (tokens >= 1_000_000) {
    return `${Number((tokens / 1_000_000).toFixed(1))}M`;
  }
  if (tokens >= 1000) {
    return `${Math.round(tokens / 1000)}k`;
  }
  return String(Math.round(tokens));
}

/** Output tokens per second, rounded. */
export function formatSpeed(tokensPerSecond: number | null | undefined): string {
  if (tokensPerSecond === null || tokensPerSecond === undefined) {
    return UNKNOWN;
  }
  return `${Math.round(tokensPerSecond)} tok/s`;
}

/** Seconds with two significant digits (`0.84 s`, `12 s`). */
export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) {
    return UNKNOWN;
  }
  return `${seconds >= 10 ? Math.round(seconds) : Number(seconds.toPrecision(2))} s`;
}

/** A 0–100 score, as an integer for tables. */
export function formatScore(score: number | null | undefined): string {
  if (score === null || score === undefined) {
    return UNKNOWN;
  }
  return String(Math.round(score));
}

/** A 0–100 value with one decimal, for explanations where the sum must be checkable. */
export function formatScore1(score: number | null | undefined): string {
  if (score === null || score === undefined) {
    return UNKNOWN;
  }
  return score.toFixed(1);
}

/** A 0–1 share as a whole percentage. */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined) {
    return UNKNOWN;
  }
  return `${Math.round(share * 100)}%`;
}

/** Score points per blended $/M: `8.1`, `245`, `8.0k`. */
export function formatEfficiency(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return UNKNOWN;
  }
  if (value >= 10_000) {
    return `${Math.round(value / 1000)}k`;
  }
  if (value >= 1000) {
    return `${(value / 1000).toFixed(1)}k`;
  }
  if (value >= 100) {
    return String(Math.round(value));
  }
  return value.toFixed(1);
}

/** A weight as written in the weights file (`3`, `0.5`). */
export function formatWeight(weight: number | null | undefined): string {
  if (weight === null || weight === undefined) {
    return UNKNOWN;
  }
  return String(Number(weight.toFixed(2)));
}

/** An RFC 3339 time as a short local date and time. */
export function formatTime(rfc3339: string | null | undefined): string {
  if (!rfc3339) {
    return UNKNOWN;
  }
  const date = new Date(rfc3339);
  return Number.isNaN(date.getTime())
    ? rfc3339
    : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export const CATEGORIES: readonly Category[] = [
  "coding",
  "reasoning",
  "math",
  "creative",
  "vision",
  "research",
  "fastCheap",
  "general",
];

export const CATEGORY_LABEL: Record<Category, string> = {
  coding: "Coding",
  reasoning: "Reasoning",
  math: "Math",
  creative: "Creative",
  vision: "Vision",
  research: "Research",
  fastCheap: "Fast & cheap",
  general: "General",
};

export const TIERS: readonly Tier[] = ["premium", "standard", "budget"];

export const TIER_LABEL: Record<Tier, string> = {
  premium: "Premium",
  standard: "Standard",
  budget: "Budget",
};

export const TAGS: readonly Tag[] = [
  "fast",
  "slow",
  "vision",
  "reasoning",
  "tools",
  "structuredOutput",
  "longContext",
  "free",
  "local",
];

export const TAG_LABEL: Record<Tag, string> = {
  fast: "fast",
  slow: "slow",
  vision: "vision",
  reasoning: "reasoning",
  tools: "tools",
  structuredOutput: "structured output",
  longContext: "long context",
  free: "free",
  local: "local",
};

export const SOURCES: readonly SourceId[] = [
  "openRouter",
  "artificialAnalysis",
  "hfLeaderboard",
  "lmArena",
  "liveBench",
];

export const SOURCE_LABEL: Record<SourceId, string> = {
  openRouter: "OpenRouter",
  artificialAnalysis: "Artificial Analysis",
  hfLeaderboard: "HF Open LLM Leaderboard",
  lmArena: "LMArena",
  liveBench: "LiveBench",
};

/** What each match rule means, for the drawer's "matched as" list. */
export const RULE_LABEL: Record<MatchRule, string> = {
  manual: "added by you",
  exactHfId: "same Hugging Face repo",
  exactId: "same id",
  normalizedName: "same name (case, separators, version)",
  wordOrder: "same words, other order",
  variantSuffix: "variant of the model (effort / mode)",
  reasoningSibling: "reasoning sibling",
  looseName: "loose name match",
  dateCodeVersion: "date code standing for the version",
  localFamilySize: "same family and size (local)",
};

/** The human text for a match rule. */
export function ruleLabel(rule: MatchRule): string {
  return RULE_LABEL[rule];
}
