import { describe, expect, it } from "vitest";
import { bestIndices, compareRows } from "./compare";
import { card } from "./testdata";

describe("bestIndices", () => {
  it("marks the highest or the lowest, ties included", () => {
    expect([...bestIndices([70, 90, 90, null], "higher")]).toEqual([1, 2]);
    expect([...bestIndices([3, 0.5, 2], "lower")]).toEqual([1]);
  });

  it("marks nothing when fewer than two are known, all are equal, or there is no better", () => {
    expect(bestIndices([80, null, null], "higher").size).toBe(0);
    expect(bestIndices([5, 5], "lower").size).toBe(0);
    expect(bestIndices([1, 2], null).size).toBe(0);
  });
});

describe("compareRows", () => {
  const a = card({
    id: "acme/fast",
    pricing: { promptPerM: 0.5, completionPerM: 1.5 },
    contextLength: 1_000_000,
    outputSpeed: 200,
    categories: { coding: { score: 70, coverage: 0.5, inputs: [] } },
    efficiency: { coding: 93.3 },
  });
  const b = card({
    id: "acme/smart",
    pricing: { promptPerM: 3, completionPerM: 15 },
    contextLength: 200_000,
    outputSpeed: null,
    categories: {
      coding: { score: 88, coverage: 0.9, inputs: [] },
      math: { score: 75, coverage: 0.4, inputs: [] },
    },
    efficiency: { coding: 14.7, math: 12.5 },
  });
  const rows = compareRows([a, b]);
  const byKey = (key: string) => {
    const found = rows.find((r) => r.key === key);
    if (!found) throw new Error(`no row ${key}`);
    return found;
  };

  it("marks the cheaper price, the longer context, the higher score", () => {
    expect(byKey("blended").cells.map((c) => c.best)).toEqual([true, false]);
    expect(byKey("blended").cells.map((c) => c.text)).toEqual(["$0.75", "$6.00"]);
    expect(byKey("context").cells.map((c) => c.best)).toEqual([true, false]);
    expect(byKey("score.coding").cells.map((c) => c.best)).toEqual([false, true]);
    expect(byKey("score.coding").cells.map((c) => c.note)).toEqual([
      "50% coverage",
      "90% coverage",
    ]);
    expect(byKey("efficiency.coding").cells.map((c) => c.best)).toEqual([true, false]);
  });

  it("does not crown a model that is the only one with a value", () => {
    expect(byKey("speed").cells.map((c) => c.best)).toEqual([false, false]);
    expect(byKey("score.math").cells.map((c) => [c.text, c.note, c.best])).toEqual([
      ["—", "no evidence", false],
      ["75", "40% coverage", false],
    ]);
  });

  it("flags rows that differ and only lists categories someone is scored in", () => {
    expect(byKey("provider").differs).toBe(false);
    expect(byKey("tier").differs).toBe(false);
    expect(byKey("context").differs).toBe(true);
    expect(rows.some((r) => r.key === "score.creative")).toBe(false);
  });

  it("keeps at most five models", () => {
    const many = Array.from({ length: 7 }, (_, i) => card({ id: `v/m${i}` }));
    expect(compareRows(many)[0]?.cells).toHaveLength(5);
  });
});
