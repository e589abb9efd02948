import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { Category } from "../../ipc";
import type { ECharts } from "./chart";
import { CATEGORY_LABEL } from "./format";
import { type PlotData, type PlotPoint, paretoFrontier, topPoint } from "./pareto";
import { type PlotColors, plotOption } from "./plotOption";

type ChartState = "loading" | "ready" | "failed";

function cssColors(element: HTMLElement): PlotColors {
  const style = getComputedStyle(element);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    text: read("--fg", "#1a2230"),
    muted: read("--muted", "#5e6b7d"),
    grid: read("--border", "#dfe3ea"),
    point: read("--plot-point", "#4f7cc4"),
    frontier: read("--accent", "#d9951c"),
    selected: read("--plot-selected", "#1f9d55"),
    panel: read("--panel", "#ffffff"),
  };
}

/**
 * Draws a throw-away plot of made-up points and clears it again in the same task (nothing of
 * it reaches the screen). Runs while the catalog query is in flight, so the first real draw
 * runs on code the engine has already compiled instead of paying for that on data arrival.
 */
function warmUp(instance: ECharts, element: HTMLElement) {
  const points: PlotPoint[] = Array.from({ length: 240 }, (_, i) => ({
    id: `warm-up-${i}`,
    name: `warm-up ${i}`,
    provider: "",
    price: 0.01 * 1.04 ** i,
    x: 0.01 * 1.04 ** i,
    score: (i * 37) % 100,
    coverage: (i % 10) / 10,
  }));
  const colors = cssColors(element);
  instance.setOption(plotOption(points, paretoFrontier(points), "general", colors, new Set()));
  instance.setOption(plotOption([], [], "general", colors, new Set()), {
    replaceMerge: ["series"],
  });
}

export interface ScatterPlotProps {
  data: PlotData;
  category: Category;
  /** The query this data answers; passed back through `onRendered`. */
  version: number;
  selected: ReadonlySet<string>;
  onOpen: (id: string) => void;
  /** Called once the chart has drawn `version` (synchronously, before the next frame). */
  onRendered: (version: number) => void;
}

/** Quality vs price for the chosen category, log price axis, Pareto frontier highlighted. */
export const ScatterPlot = memo(function ScatterPlot({
  data,
  category,
  version,
  selected,
  onOpen,
  onRendered,
}: ScatterPlotProps) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const colors = useRef<PlotColors | null>(null);
  const [state, setState] = useState<ChartState>("loading");
  const [error, setError] = useState<string | null>(null);
  const openRef = useRef(onOpen);
  openRef.current = onOpen;

  const frontier = useMemo(() => paretoFrontier(data.points), [data.points]);
  const top = useMemo(() => topPoint(data.points), [data.points]);

  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | null = null;
    const mounted = performance.now();
    // After the first frame: parsing the chart code must not hold up the app's first paint.
    const loaded = new Promise<void>((resolve) =>
      requestAnimationFrame(() => setTimeout(resolve, 0)),
    ).then(() => import("./chart"));
    loaded
      .then(({ createChart }) => {
        const element = host.current;
        if (disposed || !element) {
          return;
        }
        const instance = createChart(element);
        element.dataset.loadMs = (performance.now() - mounted).toFixed(1);
        instance.on("click", (params) => {
          const id = (params.data as { id?: string } | undefined)?.id;
          if (id) {
            openRef.current(id);
          }
        });
        observer = new ResizeObserver(() => instance.resize());
        observer.observe(element);
        chart.current = instance;
        warmUp(instance, element);
        setState("ready");
      })
      .catch((e: unknown) => {
        if (!disposed) {
          setError(e instanceof Error ? e.message : String(e));
          setState("failed");
        }
      });
    return () => {
      disposed = true;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);

  // Drawn in the same task as the table's commit, so both reach the screen in one frame.
  useLayoutEffect(() => {
    const instance = chart.current;
    const element = host.current;
    if (state !== "ready" || !instance || !element) {
      return;
    }
    colors.current ??= cssColors(element);
    // Components (axes, grid, tooltip) are kept; the two series are replaced.
    instance.setOption(plotOption(data.points, frontier, category, colors.current, selected), {
      replaceMerge: ["series"],
    });
    onRendered(version);
  }, [state, data, frontier, category, selected, version, onRendered]);

  useEffect(() => {
    const media = window.matchMedia?.("(prefers-color-scheme: dark)");
    if (!media) {
      return;
    }
    // Colours come from CSS variables: read them again and redraw when the theme flips.
    const redraw = () => {
      const instance = chart.current;
      const element = host.current;
      if (instance && element) {
        colors.current = cssColors(element);
        instance.setOption(plotOption(data.points, frontier, category, colors.current, selected), {
          notMerge: true,
        });
      }
    };
    media.addEventListener("change", redraw);
    return () => media.removeEventListener("change", redraw);
  }, [data, frontier, category, selected]);

  return (
    <div
      className="plot"
      id="models-plot"
      data-state={state}
      data-version={version}
      data-category={category}
      data-points={data.points.length}
      data-skipped={data.skipped}
      data-frontier={frontier.length}
      data-top-id={top?.id ?? ""}
    >
      <div className="plot-legend small">
        <span>
          <i className="swatch point" /> model (size = coverage)
        </span>
        <span>
          <i className="swatch frontier" /> Pareto frontier: best{" "}
          {CATEGORY_LABEL[category].toLowerCase()} score for its price
        </span>
        {selected.size > 0 && (
          <span>
            <i className="swatch selected" /> selected for compare
          </span>
        )}
        <span className="grow" />
        <span className="muted">
          {data.points.length} plotted
          {data.skipped > 0 &&
            ` · ${data.skipped} without a ${CATEGORY_LABEL[category].toLowerCase()} score or price not shown`}
        </span>
      </div>
      <div
        className="plot-canvas"
        ref={host}
        role="img"
        aria-label={`${CATEGORY_LABEL[category]} score against price`}
      />
      {(state === "loading" || (state === "ready" && version === 0)) && (
        <p className="plot-overlay muted">Loading…</p>
      )}
      {state === "failed" && <p className="plot-overlay error">Chart unavailable: {error}</p>}
      {state === "ready" && version > 0 && data.points.length === 0 && (
        <p className="plot-overlay muted">
          No model in this view has both a {CATEGORY_LABEL[category].toLowerCase()} score and a
          known price.
        </p>
      )}
    </div>
  );
});
