// The app runs with Tauri's `freezePrototype`; the chart code must load under it (see the
// tslib plugin in vite.config.ts). Freezing is irreversible, so this file holds only this test.
import { expect, it } from "vitest";

it("loads ECharts with Object.prototype frozen", async () => {
  Object.freeze(Object.prototype);
  const chart = await import("./chart");
  expect(typeof chart.createChart).toBe("function");
}, 60_000);
