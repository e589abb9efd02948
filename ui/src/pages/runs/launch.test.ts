import { describe, expect, it } from "vitest";
import {
  EMPTY_LAUNCH,
  editsFromPreview,
  type LaunchInput,
  launchOptions,
  launchProblem,
  move,
  removeAt,
  setAt,
} from "./launch";
import { preview } from "./testdata.test-util";

const input = (patch: Partial<LaunchInput>): LaunchInput => ({
  ...EMPTY_LAUNCH,
  task: "Explain monads",
  ...patch,
});

describe("launch form", () => {
  it("names what is missing or malformed", () => {
    expect(launchProblem(input({ task: "  " }))).toBe("Describe the task.");
    expect(launchProblem(input({ maxUsd: "five" }))).toMatch(/USD cap/);
    expect(launchProblem(input({ maxUsd: "$0.25" }))).toBeNull();
    expect(launchProblem(input({ maxParallelNodes: "2.5" }))).toMatch(/parallel nodes/);
    expect(launchProblem(input({ judgeModel: "m", judgeThreshold: "11" }))).toMatch(/1–10/);
    expect(launchProblem(input({}))).toBeNull();
  });

  it("builds a text cascade request with its ladder, cap, limits and judge", () => {
    const request = launchOptions(
      input({
        maxUsd: "0.05",
        maxParallelNodes: "2",
        nodeTimeoutS: "30",
        judgeModel: " wtest:openai/gpt-4.1 ",
        judgeThreshold: "8",
        verify: "cargo test",
      }),
      { ladder: ["wtest:openai/gpt-4o-mini", "wtest:openai/gpt-4o"] },
    );
    expect(request).toMatchObject({
      task: "Explain monads",
      mode: "cascade",
      maxUsd: 0.05,
      maxParallelNodes: 2,
      nodeTimeoutS: 30,
      runTimeoutS: null,
      ladder: ["wtest:openai/gpt-4o-mini", "wtest:openai/gpt-4o"],
      judge: { model: "wtest:openai/gpt-4.1", threshold: 8 },
      repo: null,
      verify: null,
      models: [],
      plan: null,
    });
    expect(request.launcher).toBeUndefined();
  });

  it("a repository makes a code run: worker, verification, no judge", () => {
    const request = launchOptions(
      input({
        mode: "single",
        repo: " /tmp/repo ",
        verify: "cargo test\n\n npm test ",
        worker: "claude",
        nodeTimeoutS: "600",
        judgeModel: "ignored",
        pauseBeforeIntegration: true,
        allowNetwork: true,
      }),
    );
    expect(request).toMatchObject({
      repo: "/tmp/repo",
      verify: ["cargo test", "npm test"],
      worker: "claude",
      nodeTimeoutS: 600,
      judge: null,
      pauseBeforeIntegration: true,
      allowNetwork: true,
    });
    // A text run has no worker to let out.
    expect(launchOptions(input({ mode: "single", allowNetwork: true })).allowNetwork).toBe(false);
  });

  it("sends a JSON schema with a text run only", () => {
    const schema = ' {"type": "object"} ';
    expect(launchOptions(input({ mode: "cascade", schema })).schema).toBe('{"type": "object"}');
    expect(launchOptions(input({ mode: "single", schema: "  " })).schema).toBeNull();
    expect(launchOptions(input({ mode: "single", repo: "/tmp/repo", schema })).schema).toBeNull();
  });

  it("takes the preview's choices as edits, so the launch runs what was shown", () => {
    expect(editsFromPreview(preview())).toEqual({
      ladder: ["wtest:openai/gpt-4o-mini", "wtest:openai/gpt-4o"],
    });
    const [first] = preview().nodes;
    if (!first) throw new Error("the preview has a node");
    const collective = preview({
      mode: "collective",
      ladder: null,
      nodes: [
        { ...first, id: "m1", role: "member", model: "a" },
        { ...first, id: "m2", role: "member", model: "b" },
        { ...first, id: "merge", role: "merge", model: "c" },
      ],
    });
    expect(editsFromPreview(collective)).toEqual({ models: ["a", "b"] });
    const request = launchOptions(input({ mode: "collective" }), editsFromPreview(collective));
    expect(request.models).toEqual(["a", "b"]);
    expect(request.ladder).toEqual([]);
  });

  it("a plan sends its edited steps and the model for steps without one", () => {
    const plan = {
      mode: "swarm" as const,
      task: "t",
      nodes: [],
      edges: [],
      warnings: [],
      origin: "deterministic" as const,
    };
    const request = launchOptions(input({ mode: "swarm", stepModel: " wtest:m " }), { plan });
    expect(request.plan).toBe(plan);
    expect(request.models).toEqual(["wtest:m"]);
    expect(launchOptions(input({ mode: "swarm" }), { plan }).models).toEqual([]);
  });

  it("edits model lists in place", () => {
    expect(setAt(["a", "b"], 1, "c")).toEqual(["a", "c"]);
    expect(removeAt(["a", "b", "c"], 0)).toEqual(["b", "c"]);
    expect(move(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(move(["a", "b"], 0, -1)).toEqual(["a", "b"]);
  });
});
