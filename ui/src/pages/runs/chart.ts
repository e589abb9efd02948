// ECharts with only what the spend chart uses (bars, a line, axes, tooltip, legend) on the
// canvas renderer (the CSP forbids eval). Loaded with a dynamic import like the Models page's
// plot, so neither the app's first paint nor the run list waits for it.
import { BarChart, LineChart } from "echarts/charts";
import { GridComponent, LegendComponent, TooltipComponent } from "echarts/components";
import { type ECharts, init, use } from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";

use([BarChart, LineChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export type { ECharts };

/** A chart drawn on a canvas inside `element`. */
export function createChart(element: HTMLElement): ECharts {
  return init(element, null, { renderer: "canvas" });
}
