import { describe, expect, it } from "vitest";
import type { CategoryScore } from "../../ipc";
import { CATEGORY_WEIGHTS, explainScore } from "./explain";

const weights = {
  "aa.coding_index": 2,
  "aa.scicode": 1,
  "livebench.coding": 2,
  "lmarena.coding": 5,
};

describe("explainScore", () => {
  const score: CategoryScore = {
    score: (2 * 80 + 1 * 50) / 3,
    coverage: 0.3,
    inputs: [
      { metric: "aa.scicode", weight: 1, normalized: 50 },
      { metric: "aa.coding_index", weight: 2, normalized: 80 },
    ],
  };
  const benchmarks = [
    {
      source: "liveBench" as const,
      metric: "livebench.coding",
      raw: 61,
      normalized: null,
      record: "m",
    },
  ];
  const explained = explainScore("coding", score, benchmarks, weights);

  it("lists used inputs by weight with their products and shares", () => {
    const used = explained.inputs.filter((i) => i.missing === null);
    expect(used.map((i) => [i.metric, i.product])).toEqual([
      ["aa.coding_index", 160],
      ["aa.scicode", 50],
    ]);
    expect(used[0]?.share).toBeCloseTo(160 / 210);
    const recomputed = used.reduce((s, i) => s + (i.product ?? 0), 0) / explained.usedWeight;
    expect(recomputed).toBeCloseTo(explained.score);
  });

  it("tells inputs with no data from inputs that are not normalized", () => {
    const missing = explained.inputs.filter((i) => i.missing !== null);
    expect(missing.map((i) => [i.metric, i.missing])).toEqual([
      ["lmarena.coding", "noData"],
      ["livebench.coding", "notNormalized"],
    ]);
  });

  it("writes the formula and the coverage in the engine's terms", () => {
    expect(explained.formula).toBe("coding 70 = (2×80.0 + 1×50.0) / 3");
    expect(explained.coverageText).toBe("coverage 30%: 3 of the category's 10 weight had data");
    expect(explained.totalWeight).toBe(10);
  });

  it("derives the total from the coverage when the weights file disagrees", () => {
    const other = explainScore("coding", { ...score, coverage: 0.25 }, [], weights);
    expect(other.totalWeight).toBeCloseTo(12);
  });

  it("reads the engine's weights file", () => {
    expect(CATEGORY_WEIGHTS.coding?.["livebench.agentic_coding"]).toBeGreaterThan(0);
    expect(Object.keys(CATEGORY_WEIGHTS)).toContain("fastCheap");
  });
});
