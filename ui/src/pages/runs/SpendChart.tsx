import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { ECharts } from "./chart";
import { type SpendColors, spendOption } from "./spendOption";
import type { SpendTotal } from "./types";

function cssColors(element: HTMLElement): SpendColors {
  const style = getComputedStyle(element);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    text: read("--fg", "#1a2230"),
    muted: read("--muted", "#5e6b7d"),
    grid: read("--border", "#dfe3ea"),
    cost: read("--accent", "#d9951c"),
    savings: read("--ok", "#1f9d55"),
  };
}

/** Spend and savings per day as bars; ECharts is loaded after the list has painted. */
export function SpendChart({ days }: { days: readonly SpendTotal[] }) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const [state, setState] = useState<"loading" | "ready" | "failed">("loading");

  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | null = null;
    new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
      .then(() => import("./chart"))
      .then(({ createChart }) => {
        const element = host.current;
        if (disposed || !element) return;
        const instance = createChart(element);
        observer = new ResizeObserver(() => instance.resize());
        observer.observe(element);
        chart.current = instance;
        setState("ready");
      })
      .catch(() => {
        if (!disposed) setState("failed");
      });
    return () => {
      disposed = true;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);

  useLayoutEffect(() => {
    const instance = chart.current;
    const element = host.current;
    if (state !== "ready" || !instance || !element) return;
    instance.setOption(spendOption(days, cssColors(element)), { notMerge: true });
  }, [state, days]);

  return (
    <div className="spend-chart" id="runs-spend-chart" data-state={state} data-days={days.length}>
      <div className="spend-canvas" ref={host} role="img" aria-label="Spend and savings per day" />
      {state === "loading" && <p className="plot-overlay muted">Loading…</p>}
      {state === "failed" && <p className="plot-overlay error">Chart unavailable.</p>}
    </div>
  );
}
