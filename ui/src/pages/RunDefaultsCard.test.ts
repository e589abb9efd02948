import { describe, expect, it } from "vitest";
import type { RunDefaults } from "../ipc";
import { defaultsOf, formOf } from "./RunDefaultsCard";

const saved: RunDefaults = {
  maxParallelRuns: 2,
  limits: {
    maxParallelNodes: 4,
    nodeTimeoutS: 180,
    codeNodeTimeoutS: 900,
    runTimeoutS: 1800,
    maxUsd: 5,
    cliReservationUsd: 0.5,
    maxOutputTokens: 4096,
  },
  baselineModel: null,
  defaultBaseline: "anthropic/claude-opus-4",
};

describe("run defaults form", () => {
  it("round-trips the stored defaults and keeps limits it does not show", () => {
    const form = formOf(saved);
    expect(form.maxUsd).toBe("5");
    const edited = defaultsOf(
      { ...form, maxParallelRuns: "3", maxUsd: "$1.25", baselineModel: " openai/gpt-4o " },
      saved,
    );
    expect(edited).toEqual({
      defaults: {
        ...saved,
        maxParallelRuns: 3,
        limits: { ...saved.limits, maxUsd: 1.25 },
        baselineModel: "openai/gpt-4o",
      },
    });
  });

  it("names the first field that is not a number of the right kind", () => {
    expect(defaultsOf({ ...formOf(saved), maxParallelNodes: "0" }, saved)).toEqual({
      problem: "Max parallel nodes is a whole number of at least 1.",
    });
    expect(defaultsOf({ ...formOf(saved), maxUsd: "lots" }, saved)).toEqual({
      problem: "The USD cap is a number of dollars.",
    });
  });
});
