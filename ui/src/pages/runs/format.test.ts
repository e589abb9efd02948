import { describe, expect, it } from "vitest";
import {
  errorText,
  formatCost,
  formatSavings,
  formatTokens,
  meterShares,
  runSavings,
} from "./format";

describe("runs formatting", () => {
  it("formats tokens, signed savings and the cap meter", () => {
    expect(formatTokens(1234, 56)).toBe("1,234 in · 56 out");
    expect(formatSavings(0.0123)).toBe("saved $0.0123");
    expect(formatSavings(-0.5)).toBe("$0.50 more");
    expect(formatSavings(null)).toBe("—");
    expect(formatCost(0)).toBe("$0.00");
    expect(formatCost(0.00012)).toBe("$0.0001");
    expect(meterShares(0.25, 0.1, 1)).toEqual({ spent: 25, reserved: 10 });
    expect(meterShares(0.9, 0.5, 1)).toEqual({ spent: 90, reserved: 10 });
    expect(meterShares(1, 0, 0)).toEqual({ spent: 0, reserved: 0 });
  });

  it("says nothing about savings of a run that spent nothing, and drops a repeated reason", () => {
    expect(runSavings(0, 0)).toBe("—");
    expect(runSavings(0.01, 0.02)).toBe("saved $0.0200");
    expect(errorText("budget_exceeded: the call's worst case does not fit")).toBe(
      "the call's worst case does not fit",
    );
    expect(errorText("provider: HTTP 400")).toBe("provider: HTTP 400");
  });
});
