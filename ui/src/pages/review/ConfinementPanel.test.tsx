import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ConfinementReport } from "../../ipc";
import { ConfinementBadge, ConfinementPanel } from "./ConfinementPanel";

afterEach(cleanup);

const sandboxed: ConfinementReport = {
  mode: "bwrap",
  network: "provider-only",
  allowed: ["https://api.anthropic.com"],
  writable: ["/data/worktrees/a1", "/data/scratch/a1/tmp", "/home/me/.claude"],
  denied: [
    {
      kind: "write",
      source: "worker",
      target: "/home/me/project/.git/hooks/pre-commit",
      detail: "read-only in the sandbox",
    },
    {
      kind: "connect",
      source: "worker",
      target: "telemetry.example.com:443",
      detail: "telemetry.example.com:443 is not this worker's provider",
    },
    {
      kind: "write",
      source: "verification",
      target: "/tmp/x",
      detail: "read-only in the sandbox",
    },
  ],
  deniedMore: 4,
};

describe("ConfinementPanel", () => {
  it("names the sandbox, the provider it could reach and every refusal", () => {
    const { container } = render(<ConfinementPanel report={sandboxed} />);
    expect(container.querySelector("#confinement-panel")?.getAttribute("data-mode")).toBe("bwrap");
    expect(screen.getByText("Sandboxed (bubblewrap)")).toBeTruthy();
    expect(screen.getByText("https://api.anthropic.com")).toBeTruthy();
    expect(screen.getByText(/and the CLI's own state/)).toBeTruthy();
    const items = container.querySelectorAll("#confinement-denied li");
    expect(items).toHaveLength(4);
    expect(items[0]?.textContent).toContain("write refused");
    expect(items[0]?.textContent).toContain(".git/hooks/pre-commit");
    expect(items[1]?.getAttribute("data-kind")).toBe("connect");
    expect(items[2]?.textContent).toContain("(verification)");
    expect(items[3]?.textContent).toBe("and 4 more");
  });

  it("warns plainly when the worker ran unconfined", () => {
    render(
      <ConfinementPanel
        report={{ ...sandboxed, mode: "none", network: "open", denied: [], deniedMore: 0 }}
      />,
    );
    expect(screen.getByText("Unconfined")).toBeTruthy();
    expect(screen.getByText(/without a sandbox/)).toBeTruthy();
    expect(screen.getByText("Nothing was refused.")).toBeTruthy();
  });

  it("says when no confinement was recorded", () => {
    render(<ConfinementPanel report={null} />);
    expect(screen.getByText(/Not recorded/)).toBeTruthy();
  });

  it("badges sandboxed and unconfined attempts, and nothing when unknown", () => {
    const { container, rerender } = render(<ConfinementBadge mode="bwrap" />);
    expect(container.textContent).toBe("sandboxed");
    rerender(<ConfinementBadge mode="none" />);
    expect(container.textContent).toBe("unconfined");
    rerender(<ConfinementBadge mode={null} />);
    expect(container.textContent).toBe("");
  });
});
