import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { act } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IpcFailure, type LineComment } from "../../ipc";
import { requestDecision } from "../../palette/commands";
import { seriousA11yFindings } from "../../testing/axe";
import { ReviewActions } from "./ReviewActions";
import { gate, review, summary } from "./testdata";

const calls = vi.hoisted(() => ({
  approve: vi.fn(),
  reject: vi.fn(),
  requestChanges: vi.fn(),
}));

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return { ...original, reviewIpc: calls };
});

beforeEach(() => {
  calls.approve.mockReset();
  calls.reject.mockReset();
  calls.requestChanges.mockReset();
});
afterEach(cleanup);

function setup(over: Parameters<typeof review>[1] = {}, lineComments: LineComment[] = []) {
  const onDecided = vi.fn();
  const onLineCommentsChange = vi.fn();
  const r = review("a1", {
    summary: summary("a1", { task: "Fix the pager offset\n\nPages start at zero." }),
    ...over,
  });
  render(
    <ReviewActions
      review={r}
      lineComments={lineComments}
      onLineCommentsChange={onLineCommentsChange}
      onDecided={onDecided}
    />,
  );
  return { onDecided, onLineCommentsChange };
}

describe("ReviewActions from the keyboard or the palette", () => {
  it("asks before approving, naming the target branch, and approves on confirm", async () => {
    const approved = review("a1", { summary: summary("a1", { state: "integrated" }) });
    calls.approve.mockResolvedValue(approved);
    const { onDecided } = setup({
      summary: summary("a1", { task: "Fix the pager offset", targetBranch: "release-2" }),
    });
    expect(document.querySelector("#approve-confirm")).toBeNull();
    act(() => requestDecision("approve"));
    const question = await screen.findByRole("alertdialog");
    expect(question.textContent).toContain("land it on release-2");
    const confirm = document.querySelector("#approve-confirm-button") as HTMLButtonElement;
    expect(document.activeElement).toBe(confirm);
    expect(await seriousA11yFindings()).toEqual([]);
    expect(calls.approve).not.toHaveBeenCalled();
    fireEvent.click(confirm);
    await waitFor(() => expect(onDecided).toHaveBeenCalledWith({ id: "a1", review: approved }));
    expect(calls.approve).toHaveBeenCalledWith("a1", "Fix the pager offset");
  });

  it("cancels the question with Escape, and opens reject and request changes at their field", async () => {
    setup();
    act(() => requestDecision("approve"));
    const question = await screen.findByRole("alertdialog");
    fireEvent.keyDown(question, { key: "Escape" });
    expect(screen.queryByRole("alertdialog")).toBeNull();
    act(() => requestDecision("reject"));
    await waitFor(() => expect(document.activeElement?.id).toBe("reject-reason"));
    act(() => requestDecision("changes"));
    await waitFor(() => expect(document.activeElement?.id).toBe("changes-comment"));
    expect(calls.approve).not.toHaveBeenCalled();
    expect(calls.reject).not.toHaveBeenCalled();
  });
});

describe("ReviewActions", () => {
  it("prefills the commit message from the task and approves with what the user wrote", async () => {
    const approved = review("a1", { summary: summary("a1", { state: "integrated" }) });
    calls.approve.mockResolvedValue(approved);
    const { onDecided } = setup();
    const message = screen.getByLabelText("Commit message") as HTMLTextAreaElement;
    expect(message.value).toBe("Fix the pager offset");
    fireEvent.change(message, { target: { value: "pager: pages start at zero" } });
    fireEvent.click(screen.getByText("Approve and integrate"));
    await waitFor(() => expect(onDecided).toHaveBeenCalledWith({ id: "a1", review: approved }));
    expect(calls.approve).toHaveBeenCalledWith("a1", "pager: pages start at zero");
  });

  it("explains a worktree that changed after verification", async () => {
    calls.approve.mockRejectedValue(
      new IpcFailure({ code: "changed", message: "src/pager.rs differs" }),
    );
    setup();
    fireEvent.click(screen.getByText("Approve and integrate"));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("changed after Switchyard verified it");
    expect(alert.textContent).toContain("src/pager.rs differs");
  });

  it("cannot approve while gates block, and names them in words", () => {
    setup({
      canApprove: false,
      approveBlocked: "gate LockedPaths failed: .github/workflows/ci.yml is locked",
      gates: [gate("lockedPaths", false), gate("escape", true), gate("verification", false)],
    });
    expect((screen.getByText("Approve and integrate") as HTMLButtonElement).disabled).toBe(true);
    expect(document.querySelector("#approve-blocked")?.textContent).toBe(
      "Approve is blocked: 2 gates failed (Locked paths, Verification). Request changes for another try, or reject the attempt.",
    );
  });

  it("says why approve is blocked when no gate failed", () => {
    setup({ canApprove: false, approveBlocked: "the worker changed nothing", gates: [] });
    expect(document.querySelector("#approve-blocked")?.textContent).toBe(
      "Approve is blocked: the worker changed nothing.",
    );
  });

  it("rejects only with a reason", async () => {
    calls.reject.mockResolvedValue(review("a1"));
    setup();
    fireEvent.click(screen.getByText("Reject"));
    const button = screen.getByRole("button", { name: "Reject" }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText("Reason"), { target: { value: "wrong approach" } });
    fireEvent.click(button);
    await waitFor(() => expect(calls.reject).toHaveBeenCalledWith("a1", "wrong approach"));
  });

  it("sends line comments with the general comment and moves to the revision", async () => {
    calls.requestChanges.mockResolvedValue(summary("a2", { state: "queued", parent: "a1" }));
    const lines = [{ path: "src/pager.rs", line: 11, text: "keep the +1 for the last page" }];
    const { onDecided, onLineCommentsChange } = setup({}, lines);
    fireEvent.click(screen.getByText("Request changes (1)"));
    fireEvent.change(screen.getByLabelText("General comment"), { target: { value: "add a test" } });
    fireEvent.click(screen.getByRole("button", { name: "Request changes" }));
    await waitFor(() => expect(onDecided).toHaveBeenCalledWith({ id: "a2" }));
    expect(calls.requestChanges).toHaveBeenCalledWith("a1", "add a test", lines);
    expect(onLineCommentsChange).toHaveBeenCalledWith([]);
  });

  it("shows nothing once the attempt is decided", () => {
    const { container } = render(
      <ReviewActions
        review={review("a1", { summary: summary("a1", { state: "integrated" }) })}
        lineComments={[]}
        onLineCommentsChange={() => {}}
        onDecided={() => {}}
      />,
    );
    expect(container.querySelector("#review-actions")).toBeNull();
  });
});
