import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CompareView } from "./CompareView";
import { gate, review, summary } from "./testdata";

const calls = vi.hoisted(() => ({ compareGroup: vi.fn(), review: vi.fn(), pick: vi.fn() }));

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    reviewIpc: calls,
    reviewEvents: { onAttemptState: vi.fn(() => Promise.resolve(() => {})) },
  };
});

afterEach(cleanup);

describe("CompareView", () => {
  it("puts the workers side by side and integrates only the one picked", async () => {
    const task = "Fix add\nit subtracts";
    const a = summary("wa", {
      worker: "exec:./wrong.sh",
      compare: "c1",
      task,
      costUsd: 0.02,
      gatesPassed: false,
    });
    const b = summary("wb", { worker: "claude", compare: "c1", task, costUsd: 0.05 });
    calls.compareGroup.mockResolvedValue({ id: "c1", attempts: [a, b] });
    const reviews: Record<string, ReturnType<typeof review>> = {
      wa: review("wa", {
        summary: a,
        canApprove: false,
        approveBlocked: "verification failed",
        gates: [gate("lockedPaths", true), gate("verification", false)],
      }),
      wb: review("wb", { summary: b }),
    };
    calls.review.mockImplementation(async (id: string) => reviews[id]);
    calls.pick.mockResolvedValue(reviews.wb);
    const { container } = render(<CompareView id="c1" />);
    await screen.findByText("exec:./wrong.sh");
    const columns = [...container.querySelectorAll<HTMLElement>(".compare-column")];
    expect(columns.map((c) => c.dataset.attempt)).toEqual(["wa", "wb"]);
    expect(container.querySelector("[data-gates='wa']")?.textContent).toBe("blocked: verification");
    expect(container.querySelector("[data-gates='wb']")?.textContent).toBe("all passed");
    expect(columns[1]?.textContent).toContain("$0.05");
    expect((container.querySelector("button[data-pick='wa']") as HTMLButtonElement).disabled).toBe(
      true,
    );
    const message = screen.getByLabelText("Commit message") as HTMLInputElement;
    expect(message.value).toBe("Fix add");
    fireEvent.change(message, { target: { value: "calc: add adds" } });
    fireEvent.click(container.querySelector("button[data-pick='wb']") as HTMLButtonElement);
    await waitFor(() => expect(calls.pick).toHaveBeenCalledWith("c1", "wb", "calc: add adds"));
  });
});
