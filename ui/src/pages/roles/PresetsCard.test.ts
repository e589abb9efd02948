import { describe, expect, it } from "vitest";
import { BLOCKS } from "./fixtures.test-util";
import { describeReport } from "./ImportExportCard";
import { summary } from "./PresetsCard";

describe("preset summary", () => {
  it("lists block titles in prompt order and keeps unknown ids as typed", () => {
    const preset = {
      name: "p",
      persona: "backend-engineer",
      stack: ["rust", "gone"],
      domain: "security",
      format: null,
      guardrails: ["security"],
    };
    expect(summary(preset, BLOCKS)).toBe(
      "Backend engineer · Rust · gone · Security products · Security",
    );
    expect(
      summary({ ...preset, persona: null, stack: [], domain: null, guardrails: [] }, BLOCKS),
    ).toBe("no blocks");
  });
});

describe("import report", () => {
  it("says what was imported, replaced and removed", () => {
    const base = {
      mode: "merge" as const,
      blocksImported: 2,
      presetsImported: 1,
      blocksReplaced: 0,
      presetsReplaced: 0,
      blocksRemoved: 0,
      presetsRemoved: 0,
    };
    expect(describeReport(base)).toBe("Imported 2 blocks and 1 preset.");
    expect(describeReport({ ...base, mode: "replace", blocksReplaced: 1, presetsRemoved: 3 })).toBe(
      "Imported 2 blocks and 1 preset (1 replaced); removed 3 presets.",
    );
  });
});
