// The quality-vs-price plot's data: which models can be plotted and which lie on the Pareto
// frontier (no other model is at least as good for at most the same price). Pure.
import type { Category, ModelSummary } from "../../ipc";

/** Free models are drawn at this price on the log axis (log 0 does not exist). */
export const FREE_PRICE_FLOOR = 0.01;

export interface PlotPoint {
  id: string;
  name: string;
  provider: string;
  /** Blended $/M (0 for free and local models). */
  price: number;
  /** Where the point sits on the log axis: the price, or the floor for free models. */
  x: number;
  score: number;
  coverage: number;
}

export interface PlotData {
  /** In the order of the models given (the table's order). */
  points: PlotPoint[];
  /** Models left out because they have no score in the category or no known price. */
  skipped: number;
}

/** The price a model is plotted at: local models are free; unknown prices are `null`. */
export function plotPrice(model: ModelSummary): number | null {
  if (model.local) {
    return 0;
  }
  const price = model.blendedPerM;
  return price !== null && Number.isFinite(price) && price >= 0 ? price : null;
}

/** The points of `models` in `category`, keeping their order. */
export function plotPoints(models: readonly ModelSummary[], category: Category): PlotData {
  const points: PlotPoint[] = [];
  let skipped = 0;
  for (const model of models) {
    const brief = model.categories[category];
    const price = plotPrice(model);
    if (!brief || brief.score === null || price === null) {
      skipped += 1;
      continue;
    }
    points.push({
      id: model.id,
      name: model.name,
      provider: model.provider,
      price,
      x: Math.max(price, FREE_PRICE_FLOOR),
      score: brief.score,
      coverage: brief.coverage ?? 0,
    });
  }
  return { points, skipped };
}

/**
 * The frontier, cheapest first: each point scores strictly higher than every point that
 * costs the same or less. Of points with equal price and score only the first given is kept.
 */
export function paretoFrontier(points: readonly PlotPoint[]): PlotPoint[] {
  const order = points
    .map((point, index) => ({ point, index }))
    .sort(
      (a, b) => a.point.price - b.point.price || b.point.score - a.point.score || a.index - b.index,
    );
  const frontier: PlotPoint[] = [];
  let best = Number.NEGATIVE_INFINITY;
  for (const { point } of order) {
    if (point.score > best) {
      frontier.push(point);
      best = point.score;
    }
  }
  return frontier;
}

/** The highest-scoring point; ties go to the first given (the table's order). */
export function topPoint(points: readonly PlotPoint[]): PlotPoint | null {
  let top: PlotPoint | null = null;
  for (const point of points) {
    if (top === null || point.score > top.score) {
      top = point;
    }
  }
  return top;
}
