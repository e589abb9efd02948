import { describe, expect, it } from "vitest";
import { approveBlockedReason, failureDetail, failureTitle, gateDetail } from "./format";
import { gate, review } from "./testdata";

describe("approveBlockedReason", () => {
  it("is null when approve is possible", () => {
    expect(approveBlockedReason(review("a", { canApprove: true }))).toBeNull();
  });

  it("names one failed gate by its title", () => {
    const r = review("a", {
      canApprove: false,
      approveBlocked: "gate Secrets failed: 1 finding",
      gates: [gate("secrets", false), gate("size", true)],
    });
    expect(approveBlockedReason(r)).toBe(
      "Approve is blocked: the Secrets gate failed. Request changes for another try, or reject the attempt.",
    );
  });

  it("falls back to the engine's reason, with one full stop", () => {
    const r = review("a", {
      canApprove: false,
      approveBlocked: "the attempt is failed.",
      gates: [],
    });
    expect(approveBlockedReason(r)).toBe("Approve is blocked: the attempt is failed.");
    expect(approveBlockedReason(review("a", { canApprove: false, approveBlocked: null }))).toBe(
      "Approve is blocked.",
    );
  });
});

describe("failureTitle", () => {
  it("puts a failure's code in words", () => {
    expect(failureTitle("workerFailed")).toBe("The worker failed");
    expect(failureTitle("canceled")).toBe("Canceled");
    expect(failureTitle("startup")).toBe("The attempt failed");
  });
});

describe("gateDetail", () => {
  it("drops the engine's leading blocked: (the page marks the gate blocked beside it)", () => {
    expect(
      gateDetail(gate("verification", false, { detail: "blocked: `sh test.sh` failed: exit 1" })),
    ).toBe("`sh test.sh` failed: exit 1");
    expect(gateDetail(gate("size", true, { detail: "2 files: within the limits" }))).toBe(
      "2 files: within the limits",
    );
  });
});

describe("failureDetail", () => {
  it("drops a message that only repeats the heading or the code", () => {
    expect(failureDetail({ code: "canceled", message: "canceled" })).toBeNull();
    expect(failureDetail({ code: "workerFailed", message: "the worker exited with code 3" })).toBe(
      "the worker exited with code 3",
    );
  });
});
