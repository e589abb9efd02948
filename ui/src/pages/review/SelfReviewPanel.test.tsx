import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { SelfReview } from "../../ipc";
import { SelfReviewPanel } from "./SelfReviewPanel";

afterEach(cleanup);

const written: SelfReview = {
  state: "written",
  model: "openai/gpt-oss-20b",
  risks: ["the pager skips the last line", "no test for an empty file"],
  filesTouched: ["src/pager.rs: new page()"],
  testsAdded: [],
  truncated: 3,
  message: null,
  costUsd: 0.0012,
};

describe("SelfReviewPanel", () => {
  it("lists the worker's risks, files and tests as its own reading, not a check", () => {
    render(<SelfReviewPanel review={written} />);
    const risks = document.getElementById("self-review-risks");
    expect(risks?.querySelectorAll("li")).toHaveLength(2);
    expect(screen.getByText(/not a check: the gates above decide/)).toBeTruthy();
    expect(screen.getByText("none named")).toBeTruthy();
    expect(screen.getByText(/3 more lines were cut/)).toBeTruthy();
    expect(screen.getByText(/It cost \$0\.0012/)).toBeTruthy();
  });

  it("says why there is no review instead of an empty list", () => {
    render(
      <SelfReviewPanel
        review={{
          ...written,
          state: "failed",
          risks: [],
          filesTouched: [],
          truncated: 0,
          message: "openai: This model's maximum context length is 8192 tokens",
          costUsd: null,
        }}
      />,
    );
    expect(document.getElementById("self-review")?.dataset.state).toBe("failed");
    expect(screen.getByText(/maximum context length/)).toBeTruthy();
    expect(document.getElementById("self-review-risks")).toBeNull();
  });
});
