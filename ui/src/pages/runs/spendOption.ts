// The spend chart's ECharts option: per day, what runs cost and what they saved against the
// baseline model (both from the engine's spend report). Pure, so it is tested alone.
import type { SpendTotal } from "./types";

export interface SpendColors {
  text: string;
  muted: string;
  grid: string;
  cost: string;
  savings: string;
}

const DAY_MS = 86_400_000;
/** The longest stretch of days the chart draws one by one. */
const MAX_DAYS = 366;

/** `YYYY-MM-DD` (UTC) of `ms`, the engine's day key. */
export function dayKey(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The engine's per-day totals with the days between `fromMs` and `toMs` that had no run added
 * as zeros, so the bars stand on a time axis. `fromMs` `null`: from the first day with a run.
 * Days outside the range are kept; a range longer than a year is not filled.
 */
export function fillDays(
  days: readonly SpendTotal[],
  fromMs: number | null,
  toMs: number,
): SpendTotal[] {
  const first = days[0]?.key;
  const start = fromMs ?? (first ? Date.parse(`${first}T00:00:00Z`) : null);
  if (start === null || Number.isNaN(start) || (toMs - start) / DAY_MS > MAX_DAYS) {
    return [...days];
  }
  const byKey = new Map(days.map((d) => [d.key, d]));
  const keys = new Set(days.map((d) => d.key));
  for (let t = start; dayKey(t) <= dayKey(toMs); t += DAY_MS) keys.add(dayKey(t));
  return [...keys]
    .sort()
    .map((key) => byKey.get(key) ?? { key, runs: 0, costUsd: 0, savingsUsd: 0 });
}

/** `$0.0123` below ten cents, `$1.23` above. */
export function axisDollars(value: number): string {
  return Math.abs(value) < 0.1 && value !== 0 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

export function spendOption(days: readonly SpendTotal[], colors: SpendColors) {
  const keys = days.map((d) => d.key.slice(5));
  return {
    animation: false,
    grid: { left: 64, right: 16, top: 34, bottom: 28 },
    legend: {
      top: 0,
      right: 8,
      textStyle: { color: colors.muted },
      data: ["Spent", "Saved vs baseline"],
    },
    tooltip: {
      trigger: "axis",
      valueFormatter: (value: unknown) => (typeof value === "number" ? axisDollars(value) : "—"),
    },
    xAxis: {
      type: "category",
      data: keys,
      axisLine: { lineStyle: { color: colors.grid } },
      axisLabel: { color: colors.muted },
    },
    yAxis: {
      type: "value",
      axisLabel: { color: colors.muted, formatter: axisDollars },
      splitLine: { lineStyle: { color: colors.grid } },
    },
    series: [
      {
        name: "Spent",
        type: "bar",
        barMaxWidth: 28,
        itemStyle: { color: colors.cost },
        data: days.map((d) => d.costUsd ?? 0),
      },
      {
        name: "Saved vs baseline",
        type: "bar",
        barMaxWidth: 28,
        itemStyle: { color: colors.savings },
        data: days.map((d) => d.savingsUsd ?? 0),
      },
    ],
  };
}
