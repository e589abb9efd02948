// Small hand-made routing answers for the tests, in the engine's serialized shapes.
import type { BudgetTierView } from "../../ipc";
import type {
  Classification,
  OutcomeEvidence,
  PickAnswer,
  Plan,
  PlanStep,
  RankedModel,
  Reason,
} from "./types";

export function step(
  id: string,
  dependsOn: string[],
  wave: number | null,
  task = `do ${id}`,
): PlanStep {
  return {
    id,
    task,
    category: "coding",
    budget: { tier: "medium", maxPricePerM: null },
    model: `acme/model-${id}`,
    dependsOn,
    wave,
    phase: null,
    artifacts: [],
    needs: { vision: false, longContext: null, tools: false, structuredOutput: false },
    notes: [],
  };
}

export function swarm(steps: PlanStep[]): Plan {
  return {
    mode: "swarm",
    task: "the task",
    nodes: steps,
    edges: steps.flatMap((s) => s.dependsOn.map((from) => ({ from, to: s.id, reason: "phase" }))),
    warnings: [],
    origin: "deterministic",
  };
}

export function reason(overrides: Partial<Reason> = {}): Reason {
  return {
    text: "coding score 87.3 at 80% coverage; $6.00/M blended; blended 85.7 ($7.00/M per verified success): #1 of 57 coding models",
    category: "coding",
    categoryScore: 87.3,
    coverage: 0.8,
    coverageAdjustment: -1.6,
    pricePerM: 3,
    completionPricePerM: 15,
    feedbackAdjustment: 0,
    feedbackCount: 0,
    feedbackMean: null,
    contextBoost: 0,
    contextMetrics: [],
    learnedAdjustment: 0,
    blendedScore: 85.7,
    estimatedSuccess: 0.857,
    costPerSuccess: 7,
    rank: 1,
    qualified: 57,
    budget: { tier: "medium", maxPricePerM: null },
    ...overrides,
  };
}

export function outcomeEvidence(overrides: Partial<OutcomeEvidence> = {}): OutcomeEvidence {
  return {
    prior: 0.857,
    successes: 0,
    failures: 0,
    since: null,
    estimate: 0.857,
    weight: 0,
    ...overrides,
  };
}

export function ranked(id: string, name: string, rank: number): RankedModel {
  return {
    id,
    name,
    provider: id.split("/")[0] ?? "acme",
    score: 90 - rank,
    category: "coding",
    pricing: { promptPerM: 3, completionPerM: 15 },
    confidence: 0.7,
    reason: reason({ rank, blendedScore: 90 - rank }),
    evidence: outcomeEvidence(),
    worker: null,
  };
}

export function classification(overrides: Partial<Classification> = {}): Classification {
  return {
    category: "coding",
    confidence: 0.82,
    signals: {
      needs: { vision: false, longContext: null, tools: false, structuredOutput: false },
      stack: ["rust"],
      hints: { speed: false, cost: false, critical: false, production: false },
    },
    matched: [
      { word: "function", category: "coding", weight: 1, signals: [] },
      { word: "unit tests", category: "coding", weight: 2, signals: [] },
    ],
    scores: [
      { category: "coding", weight: 0.82 },
      { category: "general", weight: 0.12 },
    ],
    lexicon: [{ category: "coding", weight: 3 }],
    features: [
      { feature: "unit tests", kind: "phrase", weight: 1.42 },
      { feature: "function", kind: "word", weight: 0.9 },
      { feature: "code-like token", kind: "structure", weight: 0.31 },
    ],
    model: {
      version: "lr-1",
      sha256: "031dc6666fa47ddc5dba567a08a840fbaba33c542516c3afef0c0b50acce9307",
    },
    assist: null,
    ...overrides,
  };
}

export function pickAnswer(): PickAnswer {
  const best = {
    ...ranked("anthropic/claude-sonnet", "Claude Sonnet", 1),
    worker: {
      worker: "claude:claude-sonnet",
      reason: "claude is installed and calls anthropic with Switchyard's key",
    },
  };
  return {
    pickId: 7,
    classification: classification(),
    pick: {
      ...best,
      alternatives: [ranked("openai/gpt-5", "GPT-5", 2), ranked("google/gemini", "Gemini", 3)],
    },
  };
}

/** The tiers as Rust's `budget_tiers` returns them. */
export function budgetTiers(): BudgetTierView[] {
  return [
    { tier: "low", label: "Low", band: "$0–1/M blended" },
    { tier: "medium", label: "Medium", band: "$0–5/M blended" },
    { tier: "high", label: "High", band: "$2–20/M blended" },
    { tier: "any", label: "Any", band: "any price" },
  ];
}
