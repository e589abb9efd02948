// Labels and units of the source-qualified metrics, mirroring `METRICS` in
// crates/core/src/catalog/metrics.rs (metrics.test.ts fails when the two drift apart), plus
// the two metrics the catalog derives from OpenRouter facts.
import type { SourceId } from "../../ipc";
import { formatContext, formatPrice, formatSeconds, formatSpeed, UNKNOWN } from "./format";

export type MetricUnit =
  | "index"
  | "fraction"
  | "score"
  | "elo"
  | "tokensPerSecond"
  | "seconds"
  | "usdPerM"
  | "tokens";

export interface MetricInfo {
  label: string;
  unit: MetricUnit;
  /** Latencies and prices: a lower raw value is better. */
  lowerIsBetter?: boolean;
}

/** Metrics the Rust registry defines, by id. */
export const SOURCE_METRICS: Record<string, MetricInfo> = {
  "aa.intelligence_index": { label: "AA Intelligence Index", unit: "index" },
  "aa.coding_index": { label: "AA Coding Index", unit: "index" },
  "aa.math_index": { label: "AA Math Index", unit: "index" },
  "aa.agentic_index": { label: "AA Agentic Index", unit: "index" },
  "aa.mmlu_pro": { label: "MMLU-Pro (AA)", unit: "fraction" },
  "aa.gpqa": { label: "GPQA Diamond (AA)", unit: "fraction" },
  "aa.hle": { label: "Humanity's Last Exam (AA)", unit: "fraction" },
  "aa.livecodebench": { label: "LiveCodeBench (AA)", unit: "fraction" },
  "aa.scicode": { label: "SciCode (AA)", unit: "fraction" },
  "aa.math_500": { label: "MATH-500 (AA)", unit: "fraction" },
  "aa.aime": { label: "AIME 2024 (AA)", unit: "fraction" },
  "aa.aime_25": { label: "AIME 2025 (AA)", unit: "fraction" },
  "aa.ifbench": { label: "IFBench (AA)", unit: "fraction" },
  "aa.lcr": { label: "AA Long Context Reasoning", unit: "fraction" },
  "aa.terminalbench_hard": { label: "Terminal-Bench Hard (AA)", unit: "fraction" },
  "aa.terminalbench_v2_1": { label: "Terminal-Bench 2.1 (AA)", unit: "fraction" },
  "aa.tau2": { label: "τ²-Bench Telecom (AA)", unit: "fraction" },
  "aa.tau_banking": { label: "τ-Bench Banking (AA)", unit: "fraction" },
  "aa.output_speed": { label: "Output speed (AA, median)", unit: "tokensPerSecond" },
  "aa.ttft": { label: "Time to first token (AA, median)", unit: "seconds", lowerIsBetter: true },
  "aa.ttfa": {
    label: "Time to first answer token (AA, median)",
    unit: "seconds",
    lowerIsBetter: true,
  },
  "hf.ifeval": { label: "IFEval (HF)", unit: "score" },
  "hf.bbh": { label: "BBH (HF)", unit: "score" },
  "hf.math_lvl5": { label: "MATH Lvl 5 (HF)", unit: "score" },
  "hf.gpqa": { label: "GPQA (HF)", unit: "score" },
  "hf.musr": { label: "MuSR (HF)", unit: "score" },
  "hf.mmlu_pro": { label: "MMLU-Pro (HF)", unit: "score" },
  "hf.average": { label: "Open LLM Leaderboard average", unit: "score" },
  "lmarena.overall": { label: "LMArena overall", unit: "elo" },
  "lmarena.coding": { label: "LMArena coding", unit: "elo" },
  "lmarena.math": { label: "LMArena math", unit: "elo" },
  "lmarena.creative_writing": { label: "LMArena creative writing", unit: "elo" },
  "lmarena.instruction_following": { label: "LMArena instruction following", unit: "elo" },
  "lmarena.hard_prompts": { label: "LMArena hard prompts", unit: "elo" },
  "lmarena.expert": { label: "LMArena expert", unit: "elo" },
  "lmarena.multiturn": { label: "LMArena multi-turn", unit: "elo" },
  "lmarena.long_query": { label: "LMArena longer query", unit: "elo" },
  "lmarena.chinese": { label: "LMArena Chinese", unit: "elo" },
  "livebench.reasoning": { label: "LiveBench reasoning", unit: "score" },
  "livebench.coding": { label: "LiveBench coding", unit: "score" },
  "livebench.agentic_coding": { label: "LiveBench agentic coding", unit: "score" },
  "livebench.mathematics": { label: "LiveBench mathematics", unit: "score" },
  "livebench.data_analysis": { label: "LiveBench data analysis", unit: "score" },
  "livebench.language": { label: "LiveBench language", unit: "score" },
  "livebench.instruction_following": { label: "LiveBench instruction following", unit: "score" },
  "livebench.global_average": { label: "LiveBench global average", unit: "score" },
};

/** Metrics derived from OpenRouter facts (see the notes in category_weights.json). */
export const DERIVED_METRICS: Record<string, MetricInfo> = {
  "openrouter.price": { label: "Blended price (3:1)", unit: "usdPerM", lowerIsBetter: true },
  "openrouter.context": { label: "Context length", unit: "tokens" },
};

/** The label and unit of a metric id; unknown ids are labelled with the id itself. */
export function metricInfo(id: string): MetricInfo {
  return SOURCE_METRICS[id] ?? DERIVED_METRICS[id] ?? { label: id, unit: "score" };
}

/** Short unit text, as the Rust registry's `MetricUnit::symbol`. */
export function unitSymbol(unit: MetricUnit): string {
  switch (unit) {
    case "index":
    case "score":
      return "0–100";
    case "fraction":
      return "0–1";
    case "elo":
      return "Elo";
    case "tokensPerSecond":
      return "tok/s";
    case "seconds":
      return "s";
    case "usdPerM":
      return "$/M";
    case "tokens":
      return "tokens";
  }
}

/** A raw value in its unit: fractions as percentages, Elo and indices as numbers. */
export function formatRaw(value: number | null | undefined, unit: MetricUnit): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return UNKNOWN;
  }
  switch (unit) {
    case "fraction":
      return `${(value * 100).toFixed(1)}%`;
    case "elo":
      return String(Math.round(value));
    case "index":
    case "score":
      return value.toFixed(1);
    case "tokensPerSecond":
      return formatSpeed(value);
    case "seconds":
      return formatSeconds(value);
    case "usdPerM":
      return formatPrice(value);
    case "tokens":
      return formatContext(value);
  }
}

/** The source a metric id belongs to, from its prefix (`aa.gpqa` → Artificial Analysis). */
export function metricSource(id: string): SourceId | null {
  const prefix = id.split(".")[0];
  switch (prefix) {
    case "openrouter":
      return "openRouter";
    case "aa":
      return "artificialAnalysis";
    case "hf":
      return "hfLeaderboard";
    case "lmarena":
      return "lmArena";
    case "livebench":
      return "liveBench";
    default:
      return null;
  }
}
