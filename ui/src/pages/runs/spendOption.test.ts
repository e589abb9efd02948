import { describe, expect, it } from "vitest";
import { axisDollars, fillDays, spendOption } from "./spendOption";
import { spend } from "./testdata.test-util";

const colors = { text: "#000", muted: "#555", grid: "#ddd", cost: "#d90", savings: "#1a5" };

describe("spend chart", () => {
  it("has one bar per day for spend and for savings, from the report as it is", () => {
    const option = spendOption(spend().byDay, colors);
    expect(option.xAxis.data).toEqual(["12-18", "12-19"]);
    expect(option.series.map((s) => s.name)).toEqual(["Spent", "Saved vs baseline"]);
    expect(option.series[0]?.data).toEqual([0.002, 0.0103]);
    expect(option.series[1]?.data).toEqual([0.01, 0.0356]);
  });

  it("formats small and large dollar amounts on the axis", () => {
    expect(axisDollars(0.0123)).toBe("$0.0123");
    expect(axisDollars(1.5)).toBe("$1.50");
    expect(axisDollars(0)).toBe("$0.00");
  });
});

describe("spend days", () => {
  const day = (key: string, costUsd: number) => ({ key, runs: 1, costUsd, savingsUsd: 0 });

  it("fills the period's days without runs with zeros, in order", () => {
    const filled = fillDays(
      [day("2026-12-18", 0.1), day("2026-12-20", 0.2)],
      Date.parse("2026-12-17T10:00:00Z"),
      Date.parse("2026-12-21T09:00:00Z"),
    );
    expect(filled.map((d) => [d.key, d.costUsd])).toEqual([
      ["2026-12-17", 0],
      ["2026-12-18", 0.1],
      ["2026-12-19", 0],
      ["2026-12-20", 0.2],
      ["2026-12-21", 0],
    ]);
  });

  it("starts all time at the first day with a run and leaves very long ranges alone", () => {
    const all = fillDays([day("2026-12-19", 0.1)], null, Date.parse("2026-12-20T12:00:00Z"));
    expect(all.map((d) => d.key)).toEqual(["2026-12-19", "2026-12-20"]);
    const long = fillDays([day("2020-01-01", 1)], null, Date.parse("2026-12-20T12:00:00Z"));
    expect(long).toHaveLength(1);
    expect(fillDays([], null, 0)).toEqual([]);
  });
});
