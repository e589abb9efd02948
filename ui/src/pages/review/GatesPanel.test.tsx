import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { GatesPanel } from "./GatesPanel";
import { gate, review, summary, verifyCommand } from "./testdata";

afterEach(cleanup);

describe("GatesPanel", () => {
  it("shows the diff hash and every gate passing", () => {
    const { container } = render(<GatesPanel review={review("a1")} />);
    expect(screen.getByText(/all 6 passed/)).toBeTruthy();
    expect(container.querySelector("#diff-sha256")?.textContent).toMatch(/^[0-9a-f]{64}$/);
    expect(container.querySelectorAll("[data-gate][data-passed='true']")).toHaveLength(6);
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
        gate("repository", true),
        gate("verification", false),
      ],
      verification: {
        passed: false,
        durationMs: 2500,
        commands: [verifyCommand("cargo fmt --check", true), verifyCommand("cargo test", false)],
      },
    });
    const { container } = render(<GatesPanel review={failing} />);
    expect(screen.getByText("3 of 6 blocked")).toBeTruthy();
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

  it("says which gates did not run when the worker failed before verification", () => {
    const failed = review("a3", {
      summary: summary("a3", { state: "failed" }),
      gates: [
        gate("lockedPaths", true),
        gate("escape", true),
        gate("secrets", true),
        gate("size", true),
        gate("repository", true),
      ],
      verification: null,
    });
    const { container } = render(<GatesPanel review={failed} />);
    expect(container.querySelector("#gates-verdict")?.textContent).toBe("5 passed, 1 not run");
    expect(
      container.querySelector("[data-gate='verification'][data-passed='not-run']")?.textContent,
    ).toContain("not run");
  });

  it("says when no gate ran and why", () => {
    const running = review("a4", { summary: summary("a4", { state: "running" }), gates: [] });
    const { container, unmount } = render(<GatesPanel review={running} />);
    expect(screen.getByText("not run yet")).toBeTruthy();
    expect(container.querySelector("#gates-none")?.textContent).toContain("when the worker stops");
    unmount();
    const canceled = review("a5", { summary: summary("a5", { state: "canceled" }), gates: [] });
    render(<GatesPanel review={canceled} />);
    expect(screen.getByText("not run")).toBeTruthy();
    expect(screen.getByText("The attempt stopped before Switchyard's gates ran.")).toBeTruthy();
  });

  it("shows a finding without a path as its message alone", () => {
    const failing = review("a6", {
      gates: [
        gate("verification", false, {
          evidence: [{ path: "", line: null, rule: "sh test.sh", message: "exited with code 1" }],
        }),
      ],
    });
    const { container } = render(<GatesPanel review={failing} />);
    const finding = container.querySelector("[data-gate='verification'] .evidence li");
    expect(finding?.querySelector("code")).toBeNull();
    expect(finding?.textContent).toBe("exited with code 1 (sh test.sh)");
  });
});
