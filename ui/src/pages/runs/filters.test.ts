import { describe, expect, it } from "vitest";
import { isFiltered, launchersOf, NO_FILTER, runFilter } from "./filters";
import { summary } from "./testdata.test-util";

describe("run list filter", () => {
  it("sends only what is set, trimmed", () => {
    expect(runFilter(NO_FILTER)).toEqual({ state: null, mode: null, launcher: null, text: null });
    expect(
      runFilter({ state: "failed", mode: "swarm", launcher: " claude-code ", text: "  " }),
    ).toEqual({ state: "failed", mode: "swarm", launcher: "claude-code", text: null });
    expect(isFiltered(NO_FILTER)).toBe(false);
    expect(isFiltered({ ...NO_FILTER, text: "monads" })).toBe(true);
  });

  it("suggests every launcher seen, once, sorted", () => {
    expect(
      launchersOf([summary({ launcher: "cli" }), summary({ launcher: "codex" })], ["app", "cli"]),
    ).toEqual(["app", "cli", "codex"]);
  });
});
