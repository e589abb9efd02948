// Guards the UI's metric labels against drift from the Rust registry they mirror.
import { describe, expect, it } from "vitest";
import { metricSource, SOURCE_METRICS } from "./metrics";

// Read with Node's fs (Vite refuses `?raw` imports from outside ui/); the module name is a
// variable so that the UI's type check, which has no Node types, does not resolve it.
const nodeFs = "node:fs";
const { readFileSync } = (await import(/* @vite-ignore */ nodeFs)) as {
  readFileSync: (path: string, encoding: "utf8") => string;
};
// Relative to ui/, where vitest runs.
const registry = readFileSync("../crates/core/src/catalog/metrics.rs", "utf8");

/** `(id, label)` of every `aa(…)`, `hf(…)`, `arena(…)`, `livebench(…)` entry of `METRICS`. */
function rustMetrics(): Map<string, string> {
  const start = registry.indexOf("pub const METRICS");
  const end = registry.indexOf("];", start);
  const body = registry.slice(start, end);
  const entries = new Map<string, string>();
  for (const m of body.matchAll(/\b(?:aa|hf|arena|livebench)\(\s*"([^"]+)",\s*"([^"]+)"/g)) {
    entries.set(m[1] ?? "", m[2] ?? "");
  }
  return entries;
}

describe("metric labels", () => {
  it("match crates/core/src/catalog/metrics.rs one for one", () => {
    const rust = rustMetrics();
    expect(rust.size).toBeGreaterThan(20);
    const ui = new Map(Object.entries(SOURCE_METRICS).map(([id, info]) => [id, info.label]));
    expect(ui).toEqual(rust);
  });

  it("name a source by their prefix", () => {
    for (const id of Object.keys(SOURCE_METRICS)) {
      expect(metricSource(id), id).not.toBeNull();
    }
  });
});
