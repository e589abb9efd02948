import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Transcript } from "./Transcript";
import { gate, logEntry } from "./testdata";

afterEach(cleanup);

describe("Transcript", () => {
  it("says the cost is unknown when the worker reported tokens but no price is known", () => {
    render(
      <Transcript
        follow={false}
        entries={[
          logEntry(1, {
            type: "worker",
            event: {
              kind: "usage",
              input: 600,
              output: 240,
              cached: 0,
              costUsd: null,
              estimated: false,
            },
          }),
        ]}
      />,
    );
    expect(document.querySelector("#usage")?.textContent).toBe("600 in · 240 out · cost unknown");
  });

  it("names a gate by its title and says blocked once", () => {
    render(
      <Transcript
        follow={false}
        entries={[
          logEntry(1, {
            type: "gate",
            result: gate("lockedPaths", false, {
              detail: "blocked: locked path: .github/workflows/ci.yml is locked",
            }),
          }),
        ]}
      />,
    );
    expect(document.querySelector("#attempt-log li")?.textContent).toBe(
      "Gate Locked paths: blocked — locked path: .github/workflows/ci.yml is locked",
    );
  });
});
