// Fed with what the engine sends (`get_model`'s breakdown): the UI only writes it out.
import { describe, expect, it } from "vitest";
import { coverageText, formulaText, usedTerms } from "./explain";
import { CODING_BREAKDOWN } from "./testdata";

describe("a score breakdown as text", () => {
  it("writes the formula from the engine's used terms", () => {
    expect(formulaText(CODING_BREAKDOWN)).toBe("coding 70 = (2×80.0 + 1×50.0) / 3");
  });

  it("writes the coverage with the engine's weights", () => {
    expect(coverageText(CODING_BREAKDOWN)).toBe(
      "coverage 30%: 3 of the category's 10 weight had data",
    );
  });

  it("keeps the engine's order and leaves out the terms that did not count", () => {
    expect(usedTerms(CODING_BREAKDOWN).map((t) => t.metric)).toEqual([
      "aa.coding_index",
      "aa.scicode",
    ]);
  });
});
