import { describe, expect, it } from "vitest";
import { runsHash, runsRoute } from "./route";

describe("runs routes", () => {
  it("reads the list, the launch form and one run from the hash", () => {
    expect(runsRoute("#/runs")).toEqual({ view: "list" });
    expect(runsRoute("#/runs/new")).toEqual({ view: "new" });
    expect(runsRoute("#/runs/0194f2a0c1d2-9f3e")).toEqual({ view: "run", id: "0194f2a0c1d2-9f3e" });
    expect(runsRoute("#/review/abc")).toEqual({ view: "list" });
    expect(runsRoute("#/runs/../../etc")).toEqual({ view: "list" });
  });

  it("round-trips every route", () => {
    for (const route of [
      { view: "list" } as const,
      { view: "new" } as const,
      { view: "run", id: "r1" } as const,
    ]) {
      expect(runsRoute(runsHash(route))).toEqual(route);
    }
  });
});
