import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { AttemptList } from "./AttemptList";
import { summary } from "./testdata";

afterEach(cleanup);

const NOW = 1_790_000_600_000;

describe("AttemptList", () => {
  it("invites a first task when there are no attempts", () => {
    render(<AttemptList attempts={[]} now={NOW} />);
    expect(screen.getByText("No attempts yet")).toBeTruthy();
    expect(screen.getByText("New task").getAttribute("href")).toBe("#/review/new");
  });

  it("lists attempts awaiting review first, newest first, then running, then the rest", () => {
    const attempts = [
      summary("old-review", { createdMs: NOW - 3_600_000 }),
      summary("done", { state: "integrated", createdMs: NOW - 60_000 }),
      summary("new-review", { createdMs: NOW - 120_000, gatesPassed: false }),
      summary("running", {
        state: "running",
        createdMs: NOW - 10_000,
        gatesPassed: null,
        filesChanged: null,
      }),
      summary("failed", { state: "failed", createdMs: NOW - 7_200_000 }),
    ];
    const { container } = render(<AttemptList attempts={attempts} now={NOW} />);
    const ids = (group: string) =>
      [...container.querySelectorAll(`#attempts-${group} tbody tr`)].map((tr) =>
        tr.getAttribute("data-attempt"),
      );
    expect(ids("awaiting")).toEqual(["new-review", "old-review"]);
    expect(ids("running")).toEqual(["running"]);
    expect(ids("recent")).toEqual(["done", "failed"]);
    const blocked = container.querySelector("tr[data-attempt='new-review']");
    expect(blocked?.textContent).toContain("blocked");
    expect(blocked?.querySelector("a")?.getAttribute("href")).toBe("#/review/new-review");
    expect(container.querySelector("tr[data-attempt='old-review']")?.textContent).toContain(
      "1 h ago",
    );
  });

  it("calls a failed worker's gates incomplete, not blocked, and keeps a long command on one line", () => {
    const worker = "exec:sh /home/me/projects/tools/agents/a-very-long-worker-script-name.sh";
    const { container } = render(
      <AttemptList
        attempts={[summary("f", { state: "failed", gatesPassed: false, worker })]}
        now={NOW}
      />,
    );
    const row = container.querySelector("tr[data-attempt='f']");
    expect(row?.textContent).toContain("incomplete");
    expect(row?.textContent).not.toContain("blocked");
    expect(row?.querySelector(".attempt-worker code")?.getAttribute("title")).toBe(worker);
  });
});
