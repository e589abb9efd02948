// Small hand-made catalog values for the Models page's tests.
import type {
  CatalogMetrics,
  MetricInfo,
  ModelCard,
  ModelSummary,
  ScoreBreakdown,
} from "../../ipc";

/** A summary with sensible defaults; `overrides` set what a test is about. */
export function summary(overrides: Partial<ModelSummary> & { id: string }): ModelSummary {
  return {
    name: overrides.id.split("/")[1] ?? overrides.id,
    provider: overrides.id.split("/")[0] ?? "vendor",
    pricing: { promptPerM: 1, completionPerM: 4 },
    blendedPerM: 1.75,
    contextLength: 128_000,
    tier: "standard",
    tags: [],
    categories: {},
    efficiency: {},
    outputSpeed: null,
    local: false,
    sources: 1,
    variants: 0,
    label: overrides.id,
    ...overrides,
  };
}

/** A model card with sensible defaults; `overrides` set what a test is about. */
export function card(overrides: Partial<ModelCard> & { id: string }): ModelCard {
  const pricing = overrides.pricing ?? { promptPerM: 1, completionPerM: 4 };
  // What the catalog sends for these prices (Rust computes it; tests state it).
  const blendedPerM = overrides.local
    ? 0
    : pricing.promptPerM === null || pricing.completionPerM === null
      ? null
      : (3 * pricing.promptPerM + pricing.completionPerM) / 4;
  return {
    blendedPerM,
    name: overrides.id.split("/")[1] ?? overrides.id,
    provider: overrides.id.split("/")[0] ?? "vendor",
    description: null,
    created: null,
    contextLength: 128_000,
    inputModalities: ["text"],
    outputModalities: ["text"],
    supportedParameters: [],
    huggingFaceId: null,
    pricing: { promptPerM: 1, completionPerM: 4 },
    tier: "standard",
    tags: [],
    categories: {},
    efficiency: {},
    benchmarks: [],
    matches: [],
    variants: [],
    outputSpeed: null,
    ttftSeconds: null,
    local: false,
    ...overrides,
  };
}

function metric(
  id: string,
  label: string,
  unit: MetricInfo["unit"],
  symbol: string,
  source: MetricInfo["source"],
): MetricInfo {
  return { id, label, unit, symbol, source, higherIsBetter: true, derived: false };
}

/** A slice of what `catalog_metrics` sends, in its shape. */
export const CATALOG_METRICS: CatalogMetrics = {
  metrics: [
    metric("aa.coding_index", "AA Coding Index", "index", "0–100", "artificialAnalysis"),
    metric("aa.scicode", "SciCode (AA)", "fraction", "0–1", "artificialAnalysis"),
    metric("aa.gpqa", "GPQA Diamond (AA)", "fraction", "0–1", "artificialAnalysis"),
    metric("lmarena.coding", "LMArena coding", "elo", "Elo", "lmArena"),
    metric("lmarena.overall", "LMArena overall", "elo", "Elo", "lmArena"),
    metric("livebench.coding", "LiveBench coding", "score", "0–100", "liveBench"),
    {
      ...metric("openrouter.price", "Blended price (3:1)", "usdPerM", "$/M", "openRouter"),
      higherIsBetter: false,
      derived: true,
    },
    {
      ...metric("openrouter.context", "Context length", "tokens", "tokens", "openRouter"),
      derived: true,
    },
  ],
  categories: [
    {
      category: "coding",
      weights: [
        { metric: "lmarena.coding", weight: 5 },
        { metric: "aa.coding_index", weight: 2 },
        { metric: "livebench.coding", weight: 2 },
        { metric: "aa.scicode", weight: 1 },
      ],
      totalWeight: 10,
      requireAny: [],
      requiresImageInput: false,
    },
  ],
  minCoverage: 0.2,
};

/** A coding breakdown as `get_model` sends it: two inputs used, one without data, one raw. */
export const CODING_BREAKDOWN: ScoreBreakdown = {
  category: "coding",
  score: 70,
  coverage: 0.3,
  usedWeight: 3,
  totalWeight: 10,
  minCoverage: 0.2,
  terms: [
    {
      metric: "aa.coding_index",
      weight: 2,
      raw: 71,
      normalized: 80,
      contribution: 160 / 3,
      share: 160 / 210,
      status: "used",
    },
    {
      metric: "aa.scicode",
      weight: 1,
      raw: 0.412,
      normalized: 50,
      contribution: 50 / 3,
      share: 50 / 210,
      status: "used",
    },
    {
      metric: "lmarena.coding",
      weight: 5,
      raw: null,
      normalized: null,
      contribution: null,
      share: null,
      status: "noData",
    },
    {
      metric: "livebench.coding",
      weight: 2,
      raw: 61,
      normalized: null,
      contribution: null,
      share: null,
      status: "notNormalized",
    },
  ],
};
