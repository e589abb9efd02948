// The engine's metric registry as the Models page uses it: labels, units and direction come
// over IPC (`catalogIpc.metrics`), never from a copy kept here. Loaded once per session.
import { type CatalogMetrics, catalogIpc, type MetricInfo, type MetricUnit } from "../../ipc";
import { formatContext, formatPrice, formatSeconds, formatSpeed, UNKNOWN } from "./format";

/** What the page shows of a metric. */
export type MetricLabel = Pick<MetricInfo, "id" | "label" | "unit" | "symbol">;

/** Lookups over the engine's registry. */
export interface MetricRegistry {
  /** The metric's label and unit; an id the registry lacks is labelled with itself. */
  info(id: string): MetricLabel;
  /** The least coverage a category score may rest on. */
  minCoverage: number;
}

/** A registry over what `catalog_metrics` sent. */
export function metricRegistry(metrics: CatalogMetrics): MetricRegistry {
  const byId = new Map(metrics.metrics.map((m) => [m.id, m]));
  return {
    info: (id) => byId.get(id) ?? { id, label: id, unit: "score", symbol: "" },
    minCoverage: metrics.minCoverage ?? 0,
  };
}

let loading: Promise<MetricRegistry> | null = null;

/** The registry, asked of the engine once (a failed ask is retried on the next call). */
export function loadMetricRegistry(): Promise<MetricRegistry> {
  if (loading === null) {
    const asked = catalogIpc.metrics().then(metricRegistry);
    asked.catch(() => {
      if (loading === asked) {
        loading = null;
      }
    });
    loading = asked;
  }
  return loading;
}

/** A raw value in its unit: fractions as percentages, Elo and indices as numbers. */
export function formatRaw(value: number | null | undefined, unit: MetricUnit): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return UNKNOWN;
  }
  switch (unit) {
    case "fraction":
      return `${(value * 100).toFixed(1)}%`;
    case "elo":
      return String(Math.round(value));
    case "index":
    case "score":
      return value.toFixed(1);
    case "tokensPerSecond":
      return formatSpeed(value);
    case "seconds":
      return formatSeconds(value);
    case "usdPerM":
      return formatPrice(value);
    case "tokens":
      return formatContext(value);
  }
}
