import { describe, expect, it } from "vitest";
import type { AgentConfig, PaletteEntry } from "../ipc";
import { modelFromHash, modelHash } from "../pages/models/route";
import { paletteItems } from "./entries";

const entries: PaletteEntry[] = [
  { kind: "model", id: "openai/gpt-4o", title: "GPT-4o", detail: "openai · $4.38/M" },
  { kind: "run", id: "r1", title: "Explain monads", detail: "cascade run · completed" },
  { kind: "attempt", id: "a1", title: "Fix the pager", detail: "claude · review" },
];
const snippet: AgentConfig = {
  client: "claudeCode",
  title: "Claude Code",
  target: "run in a terminal",
  format: "shell",
  snippet: "claude mcp add switchyard -- switchyard mcp",
};

describe("palette entries", () => {
  it("opens Rust's models, runs and attempts on their pages", () => {
    const items = paletteItems("#/models", entries, []);
    const effect = (key: string) => items.find((i) => i.key === key)?.effect;
    expect(effect("model:openai/gpt-4o")).toEqual({ kind: "go", hash: "#/models/openai%2Fgpt-4o" });
    expect(effect("run:r1")).toEqual({ kind: "go", hash: "#/runs/r1" });
    expect(effect("attempt:a1")).toEqual({ kind: "go", hash: "#/review/a1" });
    expect(items.find((i) => i.key === "run:r1")?.keywords).toContain("r1");
    expect(items.filter((i) => i.group === "Pages").map((i) => i.key)).toContain("page:settings");
  });

  it("offers decisions only while an attempt is in view", () => {
    expect(paletteItems("#/review", entries, []).some((i) => i.effect.kind === "decide")).toBe(
      false,
    );
    expect(paletteItems("#/review/new", entries, []).some((i) => i.effect.kind === "decide")).toBe(
      false,
    );
    const inView = paletteItems("#/review/a1", entries, []).filter(
      (i) => i.effect.kind === "decide",
    );
    expect(inView.map((i) => i.effect)).toEqual([
      { kind: "decide", decision: "approve" },
      { kind: "decide", decision: "reject" },
      { kind: "decide", decision: "changes" },
    ]);
    expect(inView[0]?.detail).toBe("attempt a1");
  });

  it("copies each agent host's MCP snippet exactly as Rust wrote it", () => {
    const copy = paletteItems("", [], [snippet]).find((i) => i.key === "action:snippet:claudeCode");
    expect(copy?.label).toBe("Copy the MCP snippet for Claude Code");
    expect(copy?.effect).toEqual({
      kind: "copy",
      text: snippet.snippet,
      what: "Claude Code's MCP snippet",
    });
  });

  it("round-trips a model id with slashes through the hash", () => {
    expect(modelFromHash(modelHash("openai/gpt-4o:free"))).toBe("openai/gpt-4o:free");
    expect(modelFromHash("#/models")).toBeNull();
    expect(modelFromHash("#/models/%E0%A4%A")).toBeNull();
  });
});
