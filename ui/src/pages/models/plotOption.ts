// The ECharts option of the quality-vs-price plot, built from plot points. Pure (no ECharts
// import: the option is plain data), so the page can build it before the chart has loaded.
import type { Category } from "../../ipc";
import { CATEGORY_LABEL, formatPrice, formatScore, formatShare } from "./format";
import { FREE_PRICE_FLOOR, type PlotPoint } from "./pareto";

export interface PlotColors {
  text: string;
  muted: string;
  grid: string;
  point: string;
  frontier: string;
  selected: string;
  panel: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tooltip HTML for one point (model names are escaped: the tooltip renders HTML). */
export function tooltipHtml(point: PlotPoint, category: Category, onFrontier: boolean): string {
  const price = point.price === 0 ? "free" : `${formatPrice(point.price)} per M (blended)`;
  return [
    `<strong>${escapeHtml(point.name)}</strong>`,
    `<span class="tt-muted">${escapeHtml(point.provider)}</span>`,
    `${CATEGORY_LABEL[category]} ${formatScore(point.score)} · coverage ${formatShare(point.coverage)}`,
    price,
    onFrontier ? `<em>On the Pareto frontier</em>` : "",
  ]
    .filter(Boolean)
    .join("<br>");
}

/** Powers of ten around the data, so the log axis starts and ends on round prices. */
export function logBounds(points: readonly PlotPoint[]): { min: number; max: number } {
  if (points.length === 0) {
    return { min: FREE_PRICE_FLOOR, max: 100 };
  }
  const xs = points.map((p) => p.x);
  const min = 10 ** Math.floor(Math.log10(Math.min(...xs)) + 1e-9);
  let max = 10 ** Math.ceil(Math.log10(Math.max(...xs)) - 1e-9);
  if (max <= min) {
    max = min * 10;
  }
  return { min, max };
}

/** The whole option: every model as a point, the frontier as a line over its own points. */
export function plotOption(
  points: readonly PlotPoint[],
  frontier: readonly PlotPoint[],
  category: Category,
  colors: PlotColors,
  selected: ReadonlySet<string>,
): Record<string, unknown> {
  const onFrontier = new Set(frontier.map((p) => p.id));
  const { min, max } = logBounds(points);
  const item = (p: PlotPoint) => ({
    id: p.id,
    name: p.name,
    value: [p.x, p.score],
    symbolSize: 6 + 6 * Math.min(1, Math.max(0, p.coverage)),
    itemStyle: selected.has(p.id)
      ? { color: colors.selected, borderColor: colors.text, borderWidth: 1.5 }
      : undefined,
  });
  return {
    animation: false,
    backgroundColor: "transparent",
    textStyle: { color: colors.text, fontFamily: "inherit" },
    grid: { left: 44, right: 28, top: 18, bottom: 42 },
    tooltip: {
      trigger: "item",
      confine: true,
      backgroundColor: colors.panel,
      borderColor: colors.grid,
      textStyle: { color: colors.text, fontSize: 12 },
      formatter: (params: { data?: { id?: string } }) => {
        const point = points.find((p) => p.id === params.data?.id);
        return point ? tooltipHtml(point, category, onFrontier.has(point.id)) : "";
      },
    },
    xAxis: {
      type: "log",
      logBase: 10,
      min,
      max,
      name: "Blended price per million tokens (3:1), log scale",
      nameLocation: "middle",
      nameGap: 26,
      nameTextStyle: { color: colors.muted, fontSize: 11 },
      axisLine: { lineStyle: { color: colors.grid } },
      axisLabel: {
        color: colors.muted,
        formatter: (v: number) => (v <= FREE_PRICE_FLOOR ? "free" : formatPrice(v)),
      },
      splitLine: { lineStyle: { color: colors.grid, opacity: 0.6 } },
    },
    yAxis: {
      type: "value",
      min: (v: { min: number }) => Math.max(0, Math.floor(v.min / 10) * 10),
      max: (v: { max: number }) => Math.min(100, Math.ceil(v.max / 10) * 10),
      name: `${CATEGORY_LABEL[category]} score`,
      nameLocation: "middle",
      nameGap: 30,
      nameTextStyle: { color: colors.muted, fontSize: 11 },
      axisLabel: { color: colors.muted },
      splitLine: { lineStyle: { color: colors.grid, opacity: 0.6 } },
    },
    series: [
      {
        id: "models",
        type: "scatter",
        name: "Models",
        clip: false,
        large: false,
        itemStyle: { color: colors.point, opacity: 0.75 },
        emphasis: { scale: 1.6, itemStyle: { opacity: 1 } },
        data: points.filter((p) => !onFrontier.has(p.id)).map(item),
      },
      {
        id: "frontier",
        type: "line",
        name: "Pareto frontier",
        step: "end",
        clip: false,
        symbol: "circle",
        symbolSize: 9,
        lineStyle: { color: colors.frontier, width: 2, opacity: 0.85 },
        itemStyle: { color: colors.frontier },
        emphasis: { scale: 1.5 },
        label: {
          show: true,
          position: "left",
          distance: 6,
          color: colors.text,
          fontSize: 10.5,
          formatter: (p: { name: string }) => p.name,
        },
        labelLayout: { hideOverlap: true },
        // The cheapest point sits on the axis's left edge: its label goes right, inside.
        data: frontier.map((p, i) =>
          i === 0 ? { ...item(p), label: { position: "right" } } : item(p),
        ),
        z: 3,
      },
    ],
  };
}
