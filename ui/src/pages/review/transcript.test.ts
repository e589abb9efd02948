import { describe, expect, it } from "vitest";
import { logEntry } from "./testdata";
import { buildTranscript, describeAction } from "./transcript";

describe("buildTranscript", () => {
  it("joins streamed text, merges a tool call's start and end, keeps the latest usage", () => {
    const entries = [
      logEntry(1, { type: "state", state: "running", note: null }),
      logEntry(2, {
        type: "worker",
        event: { kind: "assistantText", text: "Looking", delta: true },
      }),
      logEntry(3, {
        type: "worker",
        event: { kind: "assistantText", text: " at it", delta: true },
      }),
      logEntry(4, {
        type: "worker",
        event: {
          kind: "toolUse",
          id: "t1",
          tool: "Bash",
          action: { type: "command", command: "cargo test", exitCode: null },
          status: "started",
        },
      }),
      logEntry(5, {
        type: "worker",
        event: { kind: "usage", input: 10, output: 2, cached: 0, costUsd: null, estimated: false },
      }),
      logEntry(6, {
        type: "worker",
        event: {
          kind: "toolUse",
          id: "t1",
          tool: "Bash",
          action: { type: "command", command: "cargo test", exitCode: 1 },
          status: "failed",
        },
      }),
      logEntry(7, {
        type: "worker",
        event: { kind: "usage", input: 50, output: 9, cached: 5, costUsd: 0.01, estimated: false },
      }),
      // A replayed duplicate is ignored.
      logEntry(3, {
        type: "worker",
        event: { kind: "assistantText", text: " at it", delta: true },
      }),
    ];
    const { items, usage, lastSeq } = buildTranscript(entries);
    expect(items.map((i) => i.kind)).toEqual(["state", "text", "tool"]);
    expect(items[1]).toMatchObject({ kind: "text", text: "Looking at it" });
    expect(items[2]).toMatchObject({ kind: "tool", status: "failed" });
    if (items[2]?.kind === "tool")
      expect(describeAction(items[2].action)).toBe("ran cargo test (exit 1)");
    expect(usage).toEqual({ input: 50, output: 9, cached: 5, costUsd: 0.01, estimated: false });
    expect(lastSeq).toBe(7);
  });
});
