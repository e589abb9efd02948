import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BlockKind, ComposedRole, ComposeRequest, RolePreset } from "../../ipc";
import { seriousA11yFindings } from "../../testing/axe";
import { BLOCKS } from "./fixtures.test-util";

const calls: ComposeRequest[] = [];
let presets: RolePreset[] = [];

// A fake engine: composes by concatenating the chosen blocks' prompts and the task.
function fakeCompose(request: ComposeRequest): ComposedRole {
  const wanted: [BlockKind, string | null | undefined][] = [
    ["persona", request.persona],
    ...(request.stack ?? []).map((id): [BlockKind, string] => ["stack", id]),
    ...(request.guardrails ?? []).map((id): [BlockKind, string] => ["guardrail", id]),
  ];
  const used = wanted.flatMap(([kind, id]) => BLOCKS.filter((b) => b.kind === kind && b.id === id));
  const fullPrompt = [...used.map((b) => b.prompt), request.task ?? ""].join("\n");
  return {
    hasRole: used.length > 0,
    fullPrompt,
    warnings: [],
    blocks: used.map((b) => ({ kind: b.kind, id: b.id, title: b.title, source: b.source })),
    tokenEstimate: Math.ceil(fullPrompt.length / 4),
  };
}

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    rolesIpc: {
      blocks: vi.fn(async () => BLOCKS),
      presets: vi.fn(async () => presets),
      compose: vi.fn(async (request: ComposeRequest) => {
        calls.push(request);
        return fakeCompose(request);
      }),
      savePreset: vi.fn(async (preset: RolePreset) => {
        presets = [...presets.filter((p) => p.name !== preset.name), preset];
        return preset;
      }),
    },
  };
});

const { RolesPage } = await import("./RolesPage");

function pick(kind: string, query: string, id: string) {
  const input = document.querySelector(`[data-picker='${kind}'] input`);
  if (!input) throw new Error(`no ${kind} picker`);
  fireEvent.focus(input);
  fireEvent.change(input, { target: { value: query } });
  const option = document.querySelector(`[data-picker='${kind}'] [data-block-id='${id}']`);
  if (!option) throw new Error(`no option ${id}`);
  fireEvent.click(option);
}

describe("RolesPage", () => {
  beforeEach(() => {
    calls.length = 0;
    presets = [];
  });
  afterEach(cleanup);

  it("composes once typing settles and previews the prompt with its estimate", async () => {
    await act(async () => {
      render(<RolesPage />);
    });
    expect(document.querySelector("#role-preview-empty")).toBeTruthy();
    pick("persona", "back", "backend-engineer");
    pick("stack", "pg", "postgresql");
    pick("stack", "rust", "rust");
    pick("guardrail", "secu", "security");
    const task = screen.getByLabelText("Task");
    vi.useFakeTimers();
    try {
      for (const text of ["A", "Ad", "Add an index"]) {
        fireEvent.change(task, { target: { value: text } });
        await act(async () => {
          vi.advanceTimersByTime(50);
        });
      }
      expect(calls).toHaveLength(0);
      await act(async () => {
        vi.advanceTimersByTime(250);
      });
    } finally {
      vi.useRealTimers();
    }
    await waitFor(() => expect(document.querySelector("#role-preview")).toBeTruthy());
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      task: "Add an index",
      persona: "backend-engineer",
      stack: ["postgresql", "rust"],
      guardrails: ["security"],
    });
    const preview = document.querySelector("#role-preview")?.textContent ?? "";
    expect(preview).toContain("Prompt of Backend engineer.");
    expect(preview).toContain("Prompt of Security.");
    expect(preview.endsWith("Add an index")).toBe(true);
    expect(document.querySelector("#role-tokens")?.textContent).toContain(
      String(Math.ceil(preview.length / 4)),
    );
    expect(await seriousA11yFindings()).toEqual([]);
  });

  it("saves the selection as a preset and loads it back into the pickers", async () => {
    await act(async () => {
      render(<RolesPage />);
    });
    expect(document.querySelector("#preset-empty")).toBeTruthy();
    pick("persona", "sre", "sre");
    pick("stack", "ts", "typescript");
    fireEvent.change(screen.getByLabelText("Preset name"), { target: { value: "On call" } });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Save preset" }));
    });
    await waitFor(() => expect(document.querySelector("[data-preset='On call']")).toBeTruthy());
    expect(presets).toEqual([
      {
        name: "On call",
        persona: "sre",
        stack: ["typescript"],
        domain: null,
        format: null,
        guardrails: [],
      },
    ]);
    expect(document.querySelector("[data-preset='On call'] .preset-summary")?.textContent).toBe(
      "Site reliability engineer · TypeScript",
    );

    fireEvent.click(screen.getByRole("button", { name: "Clear" }));
    expect(document.querySelectorAll(".chip")).toHaveLength(0);
    const load = document.querySelector("[data-preset='On call'] [data-action='load']");
    if (!load) throw new Error("load button");
    fireEvent.click(load);
    const chips = Array.from(document.querySelectorAll(".chip")).map((c) =>
      c.getAttribute("data-block-id"),
    );
    expect(chips).toEqual(["sre", "typescript"]);
  });
});
