// Provisional: the routing commands are not in the bindings yet.
import type {
  Classification,
  PastPick,
  PickAnswer,
  Plan,
  PlanCheck,
  PlanTaskRequest,
  Recommendation,
  RouteTaskRequest,
} from "./types";

const pending = () => Promise.reject(new Error("Routing commands are not wired yet."));

export const routeIpc = {
  classify: (_task: string): Promise<Classification> => pending(),
  pick: (_request: RouteTaskRequest): Promise<PickAnswer> => pending(),
  recommend: (_request: RouteTaskRequest, _count: number): Promise<Recommendation> => pending(),
  plan: (_request: PlanTaskRequest): Promise<Plan> => pending(),
  revalidate: (_plan: Plan): Promise<PlanCheck> => pending(),
  ratePick: (_pickId: number | string, _rating: number): Promise<void> => pending(),
  recentPicks: (_limit: number): Promise<PastPick[]> => pending(),
};
