import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { applyTranscript, EMPTY_TRANSCRIPT, Transcript } from "./Transcript";
import { gate } from "./testdata";

afterEach(cleanup);

describe("Transcript", () => {
  it("says the cost is unknown when the worker reported tokens but no price is known", () => {
    render(
      <Transcript
        follow={false}
        transcript={{
          items: [],
          usage: { input: 600, output: 240, cached: 0, costUsd: null, estimated: false },
        }}
      />,
    );
    expect(document.querySelector("#usage")?.textContent).toBe("600 in · 240 out · cost unknown");
  });

  it("names a gate by its title and says blocked once", () => {
    render(
      <Transcript
        follow={false}
        transcript={{
          items: [
            {
              kind: "gate",
              seq: 1,
              result: gate("lockedPaths", false, {
                detail: "blocked: locked path: .github/workflows/ci.yml is locked",
              }),
              title: "Locked paths",
            },
          ],
          usage: null,
        }}
      />,
    );
    expect(document.querySelector("#attempt-log li")?.textContent).toBe(
      "Gate Locked paths: blocked — locked path: .github/workflows/ci.yml is locked",
    );
  });

  it("shows a tool call as Rust describes it", () => {
    render(
      <Transcript
        follow={false}
        transcript={{
          items: [
            {
              kind: "tool",
              seq: 4,
              id: "t1",
              tool: "Bash",
              action: { type: "command", command: "cargo test", exitCode: 1 },
              status: "failed",
              what: "ran cargo test (exit 1)",
            },
          ],
          usage: null,
        }}
      />,
    );
    expect(document.querySelector("#attempt-log li")?.textContent).toBe(
      "Bash ran cargo test (exit 1) failed",
    );
  });
});

describe("applyTranscript", () => {
  it("adds an item at the end, replaces one in place, and keeps usage until a new one", () => {
    const usage = { input: 5, output: 1, cached: 0, costUsd: 0.01, estimated: false };
    let state = applyTranscript(EMPTY_TRANSCRIPT, {
      index: 0,
      item: { kind: "text", seq: 1, text: "Look" },
      usage: null,
    });
    state = applyTranscript(state, { index: null, item: null, usage });
    const before = state.items;
    state = applyTranscript(state, {
      index: 0,
      item: { kind: "text", seq: 1, text: "Looking" },
      usage: null,
    });
    expect(state.items).toEqual([{ kind: "text", seq: 1, text: "Looking" }]);
    expect(before).toEqual([{ kind: "text", seq: 1, text: "Look" }]);
    expect(state.usage).toEqual(usage);
  });
});
