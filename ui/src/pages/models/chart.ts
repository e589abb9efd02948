// ECharts with only what the quality-vs-price plot uses, on the canvas renderer (the CSP
// forbids eval; canvas needs none). Loaded with a dynamic import so the first paint of the
// app does not wait for it.
import { LineChart, ScatterChart } from "echarts/charts";
import { GridComponent, TooltipComponent } from "echarts/components";
import { type ECharts, type EChartsCoreOption, init, use } from "echarts/core";
import { LabelLayout } from "echarts/features";
import { CanvasRenderer } from "echarts/renderers";

use([ScatterChart, LineChart, GridComponent, TooltipComponent, LabelLayout, CanvasRenderer]);

export type { ECharts, EChartsCoreOption };

/** A chart drawn on a canvas inside `element`. */
export function createChart(element: HTMLElement): ECharts {
  return init(element, null, { renderer: "canvas" });
}
