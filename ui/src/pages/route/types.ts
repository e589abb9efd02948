// Routing shapes as the engine serializes them (crates/core/src/routing). Provisional until the
// routing commands land in the generated bindings; then this file re-exports those.
import type { Category, Pricing } from "../../ipc";

export type { Category, Pricing };

export type BudgetTier = "low" | "medium" | "high" | "any";

export interface Budget {
  tier: BudgetTier;
  maxPricePerM: number | null;
}

export interface Needs {
  vision: boolean;
  longContext: number | null;
  tools: boolean;
  structuredOutput: boolean;
}

export interface MatchedTerm {
  word: string;
  category: Category | null;
  weight: number;
  signals: string[];
}

export interface Classification {
  category: Category;
  confidence: number;
  signals: {
    needs: Needs;
    stack: string[];
    hints: { speed: boolean; cost: boolean; critical: boolean; production: boolean };
  };
  matched: MatchedTerm[];
  scores: { category: Category; weight: number }[];
}

export interface MetricValue {
  metric: string;
  normalized: number;
}

export interface Reason {
  text: string;
  category: Category;
  categoryScore: number;
  coverage: number;
  coverageAdjustment: number;
  pricePerM: number | null;
  completionPricePerM: number | null;
  feedbackAdjustment: number;
  feedbackCount: number;
  feedbackMean: number | null;
  contextBoost: number;
  contextMetrics: MetricValue[];
  blendedScore: number;
  rank: number;
  qualified: number;
  budget: Budget;
}

export interface RankedModel {
  id: string;
  name: string;
  provider: string;
  score: number;
  category: Category;
  pricing: Pricing;
  confidence: number;
  reason: Reason;
}

export interface Pick extends RankedModel {
  alternatives: RankedModel[];
}

export interface PickAnswer {
  pickId: number | string;
  classification: Classification;
  pick: Pick;
}

export interface Rejections {
  overBudget: number;
  notInCategory: number;
  noVision: number;
  shortContext: number;
  noTools: number;
  noStructuredOutput: number;
  unusable: number;
}

export interface Recommendation {
  category: Category;
  models: RankedModel[];
  qualified: number;
  rejected: Rejections;
}

export interface PlanStep {
  id: string;
  task: string;
  category: Category;
  budget: Budget;
  model: string | null;
  dependsOn: string[];
  wave: number | null;
  phase: string | null;
  artifacts: string[];
  needs: Needs;
  notes: string[];
}

export interface PlanEdge {
  from: string;
  to: string;
  reason: string;
}

interface PlanCommon {
  task: string;
  edges: PlanEdge[];
  warnings: string[];
  origin: "deterministic" | "model";
}

export type Plan =
  | ({ mode: "plan"; steps: PlanStep[] } & PlanCommon)
  | ({ mode: "swarm"; nodes: PlanStep[] } & PlanCommon);

export type PlanMode = Plan["mode"];

export interface PlanIssue {
  code: string;
  severity: "error" | "warning";
  step: string | null;
  message: string;
  edges: PlanEdge[];
}

export interface PlanCheck {
  plan: Plan;
  issues: PlanIssue[];
}

export interface PastPick {
  id: number | string;
  task: string;
  category: Category;
  modelId: string;
  modelName: string;
  createdAt: string;
  rating: number | null;
}

/** What the form asks for (`RouteTaskRequest`). */
export interface RouteTaskRequest {
  task: string;
  budget: BudgetTier;
  maxPrice: number | null;
  needs: string[];
  anyProvider: boolean;
}

/** What Plan / Swarm asks for (`PlanTaskRequest`). */
export interface PlanTaskRequest {
  task: string;
  mode: PlanMode;
  budget: BudgetTier;
  maxPrice: number | null;
  anyProvider: boolean;
}
