// Routing shapes as the engine serializes them (crates/core/src/routing), from the bindings.
import type { Plan as WirePlan } from "../../ipc";

export type {
  Budget,
  BudgetTier,
  Category,
  Classification,
  Evidence as OutcomeEvidence,
  LearningSettings,
  MatchedTerm,
  MetricValue,
  Needs,
  PastPick,
  Pick,
  PickAnswer,
  Plan,
  PlanCheck,
  PlanEdge,
  PlanIssue,
  PlanStep,
  PlanTaskRequest,
  Pricing,
  RankedModel,
  Reason,
  Recommendation,
  Rejections,
  RouteTaskRequest,
} from "../../ipc";

export type PlanMode = WirePlan["mode"];
