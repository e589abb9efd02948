import { describe, expect, it } from "vitest";
import { savingsLines } from "./LearningSummary";

describe("savingsLines", () => {
  it("says nothing without outcomes", () => {
    expect(savingsLines({ outcomes: 0, costUsd: 0, staticUsd: null, premiumUsd: null })).toEqual(
      [],
    );
  });

  it("says when learning spent more than the static picks, and when a price is unknown", () => {
    const lines = savingsLines({
      outcomes: 2,
      costUsd: 0.004,
      staticUsd: 0.0038,
      premiumUsd: null,
    });
    expect(lines[0]).toBe("2 outcomes cost $0.0040");
    expect(lines[1]).toContain("$0.0038 (spent $0.0002 more)");
    expect(lines[2]).toContain("unknown (a price is missing)");
  });
});
