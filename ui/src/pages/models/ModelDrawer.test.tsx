// The drawer renders what the engine sends — the model's breakdowns (`get_model`) and the
// metric registry (`catalog_metrics`) — and computes no score of its own.
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ModelDetail } from "../../ipc";
import { CATALOG_METRICS, CODING_BREAKDOWN, card } from "./testdata";

const DETAIL: ModelDetail = {
  card: card({
    id: "acme/coder",
    categories: { coding: { score: 70, coverage: 0.3, inputs: [] } },
    benchmarks: [
      {
        source: "artificialAnalysis",
        metric: "aa.coding_index",
        raw: 71,
        normalized: 80,
        record: "r",
      },
      {
        source: "artificialAnalysis",
        metric: "aa.scicode",
        raw: 0.412,
        normalized: 50,
        record: "r",
      },
      { source: "liveBench", metric: "livebench.coding", raw: 61, normalized: null, record: "l" },
    ],
  }),
  breakdown: [CODING_BREAKDOWN],
};

const metrics = vi.fn(async () => CATALOG_METRICS);

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    catalogIpc: {
      getModel: vi.fn(async () => DETAIL),
      metrics: () => metrics(),
    },
  };
});

const { ModelDrawer } = await import("./ModelDrawer");

function drawer() {
  return render(
    <ModelDrawer
      modelId="acme/coder"
      focus="coding"
      status={null}
      selected={[]}
      onToggleSelect={() => {}}
      onClose={() => {}}
      onChanged={() => {}}
    />,
  );
}

const ready = () =>
  waitFor(() =>
    expect(document.querySelector("#model-drawer")?.getAttribute("data-state")).toBe("ready"),
  );

afterEach(cleanup);

describe("ModelDrawer", () => {
  it("shows the engine's breakdown with the registry's labels", async () => {
    drawer();
    await ready();
    const coding = document.querySelector(".score-item[data-category='coding']");
    expect(coding?.querySelector(".score-value")?.textContent).toBe("70");
    expect(coding?.querySelector(".formula")?.textContent).toBe(
      "coding 70 = (2×80.0 + 1×50.0) / 3",
    );
    const rows = [...(coding?.querySelectorAll(".why-table tbody tr") ?? [])].map((row) => [
      row.querySelector("th")?.textContent,
      row.getAttribute("data-status"),
    ]);
    expect(rows).toEqual([
      ["AA Coding Index", "used"],
      ["SciCode (AA)", "used"],
      ["LMArena coding", "noData"],
      ["LiveBench coding", "notNormalized"],
    ]);
    const scicode = coding?.querySelector("tr[data-metric='aa.scicode']");
    // Raw in its unit, the engine's points and share.
    expect([...(scicode?.querySelectorAll("td") ?? [])].map((td) => td.textContent)).toEqual([
      "1",
      "41.2%",
      "50.0",
      "16.7",
      "24%",
    ]);
    expect(screen.getByText(/Not normalized/)).toBeTruthy();
  });

  it("labels each source's benchmarks with the registry's label and unit", async () => {
    drawer();
    await ready();
    const row = document.querySelector("#model-sources .bench-row[data-metric='aa.scicode']");
    expect(row?.querySelector("th")?.textContent).toBe("SciCode (AA) 0–1");
    expect(row?.querySelector("td")?.textContent).toBe("41.2%");
    expect(metrics).toHaveBeenCalledTimes(1);
  });
});
