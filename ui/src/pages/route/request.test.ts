import { describe, expect, it } from "vitest";
import { EMPTY_INPUT } from "./RouteForm";
import { planRequest, routeRequest } from "./request";

describe("requests", () => {
  const input = {
    ...EMPTY_INPUT,
    task: "  translate the README  ",
    budget: "low" as const,
    maxPrice: "$0.5",
    needs: ["long-context"],
    anyProvider: true,
    modelPlanner: true,
  };

  it("trims the task and parses the price cap", () => {
    expect(routeRequest(input)).toEqual({
      task: "translate the README",
      budget: "low",
      maxPrice: 0.5,
      needs: ["long-context"],
      anyProvider: true,
    });
  });

  it("asks for the mode and the model planner", () => {
    expect(planRequest({ ...input, maxPrice: "" }, "swarm")).toEqual({
      task: "translate the README",
      mode: "swarm",
      budget: "low",
      maxPrice: null,
      anyProvider: true,
      useModelPlanner: true,
    });
  });
});
