// The form's input as the engine's requests. Pure.
import { parseMaxPrice } from "./format";
import type { RouteInput } from "./RouteForm";
import type { PlanMode, PlanTaskRequest, RouteTaskRequest } from "./types";

function maxPrice(input: RouteInput): number | null {
  return parseMaxPrice(input.maxPrice) ?? null;
}

export function routeRequest(input: RouteInput): RouteTaskRequest {
  return {
    task: input.task.trim(),
    budget: input.budget,
    maxPrice: maxPrice(input),
    needs: [...input.needs],
    anyProvider: input.anyProvider,
  };
}

export function planRequest(input: RouteInput, mode: PlanMode): PlanTaskRequest {
  return {
    task: input.task.trim(),
    mode,
    budget: input.budget,
    maxPrice: maxPrice(input),
    anyProvider: input.anyProvider,
    useModelPlanner: input.modelPlanner,
  };
}
