import { describe, expect, it } from "vitest";
import { FREE_PRICE_FLOOR, type PlotPoint, paretoFrontier, plotPoints, topPoint } from "./pareto";
import { summary } from "./testdata";

function point(id: string, price: number, score: number): PlotPoint {
  return {
    id,
    name: id,
    provider: "p",
    price,
    x: Math.max(price, FREE_PRICE_FLOOR),
    score,
    coverage: 1,
  };
}

const ids = (points: PlotPoint[]) => points.map((p) => p.id);

describe("paretoFrontier", () => {
  it("keeps each point that beats everything cheaper, cheapest first", () => {
    const points = [
      point("mid", 3, 70),
      point("cheap", 0.5, 50),
      point("dominated", 4, 65),
      point("best", 10, 90),
      point("pricey-worse", 20, 80),
      point("free", 0, 30),
    ];
    expect(ids(paretoFrontier(points))).toEqual(["free", "cheap", "mid", "best"]);
  });

  it("drops a point that costs the same as a better one, and later duplicates", () => {
    const points = [point("a", 2, 60), point("b", 2, 75), point("c", 2, 75), point("d", 1, 60)];
    expect(ids(paretoFrontier(points))).toEqual(["d", "b"]);
  });

  it("needs a strictly higher score to join at a higher price", () => {
    expect(ids(paretoFrontier([point("x", 1, 50), point("y", 5, 50)]))).toEqual(["x"]);
    expect(paretoFrontier([])).toEqual([]);
  });

  it("no point of the frontier is dominated and every other point is", () => {
    const points = Array.from({ length: 60 }, (_, i) =>
      point(`m${i}`, ((i * 37) % 23) / 2, (i * 53) % 97),
    );
    const frontier = new Set(paretoFrontier(points).map((p) => p.id));
    const dominated = (p: PlotPoint) =>
      points.some(
        (q) =>
          q !== p &&
          q.price <= p.price &&
          q.score >= p.score &&
          (q.price < p.price || q.score > p.score),
      );
    for (const p of points) {
      if (frontier.has(p.id)) {
        expect(dominated(p)).toBe(false);
      } else {
        const tiedTwin = points.some(
          (q) => q !== p && frontier.has(q.id) && q.price === p.price && q.score === p.score,
        );
        expect(dominated(p) || tiedTwin).toBe(true);
      }
    }
  });
});

describe("plotPoints", () => {
  const models = [
    summary({
      id: "a/scored",
      blendedPerM: 2,
      categories: { coding: { score: 70, coverage: 0.5 } },
    }),
    summary({
      id: "b/unpriced",
      blendedPerM: null,
      categories: { coding: { score: 80, coverage: 1 } },
    }),
    summary({ id: "c/other-category", categories: { math: { score: 60, coverage: 1 } } }),
    summary({ id: "d/free", blendedPerM: 0, categories: { coding: { score: 40, coverage: 0.3 } } }),
    summary({
      id: "local/ollama/qwen",
      local: true,
      blendedPerM: null,
      categories: { coding: { score: 45, coverage: 0.2 } },
    }),
  ];

  it("plots models with a score and a price, in order, and counts the rest", () => {
    const { points, skipped } = plotPoints(models, "coding");
    expect(ids(points)).toEqual(["a/scored", "d/free", "local/ollama/qwen"]);
    expect(skipped).toBe(2);
  });

  it("puts free and local models at the floor of the log axis", () => {
    const { points } = plotPoints(models, "coding");
    expect(points.map((p) => [p.price, p.x])).toEqual([
      [2, 2],
      [0, FREE_PRICE_FLOOR],
      [0, FREE_PRICE_FLOOR],
    ]);
  });

  it("topPoint is the highest score, the first on ties", () => {
    expect(topPoint([point("a", 1, 50), point("b", 2, 80), point("c", 3, 80)])?.id).toBe("b");
    expect(topPoint([])).toBeNull();
  });
});
