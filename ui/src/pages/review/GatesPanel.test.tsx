import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { GatesPanel } from "./GatesPanel";
import { gate, review, verifyCommand } from "./testdata";

afterEach(cleanup);

describe("GatesPanel", () => {
  it("shows the diff hash and every gate passing", () => {
    const { container } = render(<GatesPanel review={review("a1")} />);
    expect(screen.getByText(/all 5 passed/)).toBeTruthy();
    expect(container.querySelector("#diff-sha256")?.textContent).toMatch(/^[0-9a-f]{64}$/);
    expect(container.querySelectorAll("[data-gate][data-passed='true']")).toHaveLength(5);
  });

  it("names the blocking path and rule, and opens the failing verification log", () => {
    const failing = review("a2", {
      gates: [
        gate("lockedPaths", false, {
          detail: "1 locked path changed",
          evidence: [
            {
              path: ".github/workflows/ci.yml",
              line: null,
              rule: ".github/workflows/**",
              message: "edits a locked path",
            },
          ],
        }),
        gate("escape", true),
        gate("secrets", false, {
          evidence: [
            {
              path: "src/config.rs",
              line: 12,
              rule: "aws-access-token",
              message: "looks like an AWS key",
            },
          ],
        }),
        gate("size", true),
        gate("verification", false),
      ],
      verification: {
        passed: false,
        durationMs: 2500,
        commands: [verifyCommand("cargo fmt --check", true), verifyCommand("cargo test", false)],
      },
    });
    const { container } = render(<GatesPanel review={failing} />);
    expect(screen.getByText("3 of 5 blocked")).toBeTruthy();
    const locked = container.querySelector("[data-gate='lockedPaths']") as HTMLElement;
    expect(locked.dataset.passed).toBe("false");
    expect(within(locked).getByText(".github/workflows/ci.yml")).toBeTruthy();
    expect(within(locked).getByText("(.github/workflows/**)")).toBeTruthy();
    const secrets = container.querySelector("[data-gate='secrets']") as HTMLElement;
    expect(within(secrets).getByText("src/config.rs:12")).toBeTruthy();
    const commands = container.querySelectorAll<HTMLDetailsElement>("details.verify-command");
    expect(commands).toHaveLength(2);
    expect(commands[0]?.open).toBe(false);
    expect(commands[1]?.open).toBe(true);
    expect(commands[1]?.textContent).toContain("exit 101");
    expect(commands[1]?.textContent).toContain("11 passed, 1 failed");
    expect(commands[1]?.querySelector(".log-tail")?.textContent).toContain(
      "test pager::zero ... FAILED",
    );
  });

  it("says when a command timed out rather than printing an exit code", () => {
    const timedOut = review("a3", {
      verification: {
        passed: false,
        durationMs: 60_000,
        commands: [
          verifyCommand("npm test", false, { outcome: "timedOut", exitCode: null, counts: [] }),
        ],
      },
    });
    const { container } = render(<GatesPanel review={timedOut} />);
    expect(container.querySelector("details.verify-command summary")?.textContent).toContain(
      "timed out",
    );
  });
});
