import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { seriousA11yFindings } from "../../testing/axe";
import { clearLaunchPrefill, peekLaunchPrefill } from "../runs/handoff";
import { stepsOf } from "./plan";
import { budgetTiers, pickAnswer, ranked, step, swarm } from "./testdata.test-util";
import type { PastPick, Plan, PlanTaskRequest, RouteTaskRequest } from "./types";

// A fake engine: revalidation recomputes waves from dependsOn so edits show in the graph.
let past: PastPick[] = [];
const pick = vi.fn(async (_request: RouteTaskRequest) => pickAnswer());
const plan = vi.fn(
  async (request: PlanTaskRequest): Promise<Plan> =>
    request.mode === "swarm"
      ? swarm([step("n1", [], 0), step("n2", ["n1"], 1), step("n3", ["n1"], 1)])
      : { ...swarm([step("s1", [], 0), step("s2", ["s1"], 1)]), mode: "plan", steps: [] },
);
const revalidate = vi.fn(async (input: Plan) => {
  const steps = stepsOf(input);
  const waves = new Map<string, number>();
  for (const s of steps) {
    waves.set(s.id, Math.max(-1, ...s.dependsOn.map((d) => waves.get(d) ?? -1)) + 1);
  }
  const nodes = steps.map((s) => ({ ...s, wave: waves.get(s.id) ?? null }));
  const next = swarm(nodes);
  return { plan: next, issues: [] };
});
const ratePick = vi.fn(async (_id: number | string, _rating: number) => {});

const recommend = vi.fn(async (_request: RouteTaskRequest, _count: number) => ({
  category: "coding",
  models: [ranked("a/one", "One", 1), ranked("b/two", "Two", 2)],
  qualified: 9,
  rejected: {
    overBudget: 2,
    notInCategory: 0,
    noVision: 0,
    shortContext: 0,
    noTools: 0,
    noStructuredOutput: 0,
    unusable: 0,
  },
}));

vi.mock("./api", () => ({
  routeIpc: {
    budgetTiers: vi.fn(async () => budgetTiers()),
    classify: vi.fn(async () => pickAnswer().classification),
    pick: (request: RouteTaskRequest) => pick(request),
    recommend: (request: RouteTaskRequest, count: number) => recommend(request, count),
    plan: (request: PlanTaskRequest) => plan(request),
    revalidate: (input: Plan) => revalidate(input),
    ratePick: (id: number | string, rating: number) => ratePick(id, rating),
    recentPicks: vi.fn(async () => past),
    learningSettings: vi.fn(async () => ({
      since: null,
      skipBelow: 0.3,
      outcomes: 3,
      estimates: [],
      savings: { outcomes: 3, costUsd: 0.012, staticUsd: 0.05, premiumUsd: 0.2 },
    })),
  },
}));

const { forgetRouteState, RoutePage } = await import("./RoutePage");

const TASK = "Write a Rust function that parses RFC 3339 timestamps, then add unit tests";

function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`no #${id}`);
  return el;
}

function typeTask() {
  fireEvent.change(screen.getByLabelText("Task"), { target: { value: TASK } });
}

beforeEach(() => {
  past = [];
  vi.clearAllMocks();
  forgetRouteState();
});
afterEach(cleanup);

describe("RoutePage", () => {
  it("picks with the form's budget, needs and provider scope, and explains the pick", async () => {
    render(<RoutePage />);
    expect((byId("route-pick") as HTMLButtonElement).disabled).toBe(true);
    typeTask();
    // The tiers are Rust's (`budget_tiers`), drawn once it answers.
    const high = await waitFor(() => {
      const button = document.querySelector<HTMLElement>("[data-budget='high']");
      if (!button) throw new Error("no tiers yet");
      expect(button.title).toBe("$2–20/M blended");
      return button;
    });
    fireEvent.click(high);
    fireEvent.change(screen.getByLabelText("Max price"), { target: { value: "8" } });
    fireEvent.click(screen.getByLabelText("Vision"));
    fireEvent.click(screen.getByLabelText("Any provider"));
    fireEvent.click(byId("route-pick"));

    await screen.findByText("Claude Sonnet");
    expect(pick).toHaveBeenCalledWith({
      task: TASK,
      budget: "high",
      maxPrice: 8,
      needs: ["vision"],
      anyProvider: true,
    });
    expect(document.querySelector("#route-pick-reason")?.textContent).toContain("87.3");
    // A coding task: the worker that would run the pick here, from the engine.
    expect(document.querySelector("#route-pick-worker code")?.textContent).toBe(
      "claude:claude-sonnet",
    );
    expect(document.querySelector("#route-alternatives .alt-worker")).toBeNull();
    expect(document.querySelector("#route-evidence")?.textContent).toContain("unit tests +1.42");
    const alternatives = document.querySelector("#route-alternatives") as HTMLElement;
    expect(within(alternatives).getByText("GPT-5").getAttribute("href")).toBe(
      "#/models?model=openai%2Fgpt-5",
    );

    fireEvent.click(screen.getAllByLabelText("4 stars")[0] as HTMLElement);
    await waitFor(() => expect(ratePick).toHaveBeenCalledWith(7, 4));
    expect(await seriousA11yFindings()).toEqual([]);
  });

  it("says what recorded outcomes cost against the static picks and all-premium", async () => {
    render(<RoutePage />);
    const line = await waitFor(() => {
      const found = document.querySelector("#route-learning-savings");
      if (!found) throw new Error("no savings line yet");
      return found.textContent ?? "";
    });
    expect(line).toContain("3 outcomes cost $0.0120");
    expect(line).toContain("on the static picks $0.0500 (saved $0.0380)");
    expect(line).toContain("on the premium baseline $0.20 (saved $0.19)");
  });

  it("recommends a set with the count chosen, and says what was left out", async () => {
    render(<RoutePage />);
    typeTask();
    fireEvent.change(byId("route-count"), { target: { value: "2" } });
    fireEvent.click(byId("route-recommend"));
    const card = await waitFor(() => byId("route-recommend-card"));
    expect(card.getAttribute("data-count")).toBe("2");
    expect(within(card).getByText("Left out: 2 outside the budget.")).toBeTruthy();
    expect(recommend).toHaveBeenCalledWith(expect.objectContaining({ task: TASK }), 2);
  });

  it("refuses an invalid max price", () => {
    render(<RoutePage />);
    typeTask();
    fireEvent.change(screen.getByLabelText("Max price"), { target: { value: "cheap" } });
    expect((byId("route-pick") as HTMLButtonElement).disabled).toBe(true);
  });

  it("draws a swarm by waves and recomputes it after an edit", async () => {
    render(<RoutePage />);
    typeTask();
    fireEvent.click(byId("route-swarm"));
    const graph = await waitFor(() => {
      const el = document.querySelector("#route-graph");
      if (!el) throw new Error("no graph yet");
      return el;
    });
    expect(graph.getAttribute("data-nodes")).toBe("3");
    expect(graph.getAttribute("data-edges")).toBe("2");
    expect(document.querySelector("[data-step='n3']")?.getAttribute("data-wave")).toBe("1");

    // n3 now also waits for n2: it moves to the third wave.
    fireEvent.click(document.querySelector("[data-step='n3']") as HTMLElement);
    fireEvent.click(document.querySelector("#route-step-editor [data-dep='n2']") as HTMLElement);
    await waitFor(() =>
      expect(document.querySelector("[data-step='n3']")?.getAttribute("data-wave")).toBe("2"),
    );
    expect(document.querySelector("#route-graph")?.getAttribute("data-edges")).toBe("3");

    fireEvent.click(screen.getByText("Remove step"));
    await waitFor(() =>
      expect(document.querySelector("#route-graph")?.getAttribute("data-nodes")).toBe("2"),
    );
    // Launch hands the edited swarm to the Runs page's launch form.
    const launch = document.querySelector("#route-launch") as HTMLButtonElement;
    await waitFor(() => expect(launch.disabled).toBe(false));
    fireEvent.click(launch);
    expect(window.location.hash).toBe("#/runs/new");
    const prefill = peekLaunchPrefill();
    expect(prefill?.mode).toBe("swarm");
    expect(prefill?.plan?.mode).toBe("swarm");
    expect(prefill?.plan && "nodes" in prefill.plan ? prefill.plan.nodes.length : 0).toBe(2);
    clearLaunchPrefill(prefill);
    expect(peekLaunchPrefill()).toBeNull();
  });

  it("shows the engine's error", async () => {
    pick.mockRejectedValueOnce(new Error("no coding model fits the low budget"));
    render(<RoutePage />);
    typeTask();
    fireEvent.click(byId("route-pick"));
    expect(await screen.findByText("no coding model fits the low budget")).toBeTruthy();
  });

  it("rates past picks", async () => {
    past = [
      {
        id: 3,
        task: "translate a README",
        category: "creative",
        modelId: "a/one",
        modelName: "One",
        createdAt: "2026-11-29T10:00:00Z",
        rating: null,
      },
    ];
    render(<RoutePage />);
    const row = await waitFor(() => {
      const el = document.querySelector("[data-pick='3']");
      if (!el) throw new Error("no past pick yet");
      return el as HTMLElement;
    });
    fireEvent.click(within(row).getByLabelText("2 stars"));
    await waitFor(() => expect(ratePick).toHaveBeenCalledWith(3, 2));
    await waitFor(() => expect(row.querySelector(".stars")?.getAttribute("data-rating")).toBe("2"));
  });
});
