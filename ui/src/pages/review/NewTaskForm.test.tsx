import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { seriousA11yFindings } from "../../testing/axe";
import { provider } from "../keys/testdata.test-util";
import { summary as modelSummary } from "../models/testdata";
import { NewTaskForm } from "./NewTaskForm";
import { summary } from "./testdata";

const review = vi.hoisted(() => ({
  detectVerification: vi.fn(),
  pickRepoFolder: vi.fn(),
  start: vi.fn(),
  startCompare: vi.fn(),
}));

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    reviewIpc: review,
    catalogIpc: {
      listModels: vi.fn(async () => [modelSummary({ id: "acme/cheap", blendedPerM: 0.2 })]),
    },
    ipc: {
      lastDoctorReport: vi.fn(async () => ({
        generatedAt: "",
        checks: [],
        gitVersion: null,
        workerClis: [
          {
            name: "claude",
            cli: "claude",
            program: "claude",
            title: "Claude Code",
            path: "/usr/bin/claude",
            version: "2.1.3 (Claude Code)",
            installed: true,
            ready: true,
            models: [],
            label: "Claude Code (2.1.3)",
          },
          {
            name: "codex",
            cli: "codex",
            program: "codex",
            title: "Codex CLI",
            path: null,
            installed: false,
            ready: false,
            models: [],
            label: "Codex CLI (not installed)",
          },
        ],
        localEndpoints: [],
      })),
    },
    keysIpc: {
      providers: vi.fn(async () => [
        provider("openrouter"),
        provider("lab-vllm", { custom: true, name: "Lab vLLM" }),
      ]),
    },
    rolesIpc: {
      presets: vi.fn(async () => [
        {
          name: "Rust reviewer",
          persona: null,
          stack: [],
          domain: null,
          format: null,
          guardrails: [],
        },
      ]),
    },
  };
});

beforeEach(() => {
  for (const fn of Object.values(review)) fn.mockReset();
  window.location.hash = "#/review/new";
});
afterEach(cleanup);

const PROBE = {
  toplevel: "/home/me/project",
  branch: "main",
  head: "abcdef0123456789abcdef0123456789abcdef01",
  dirty: ["notes.txt", "src/wip.rs"],
  verify: ["cargo test"],
};

describe("NewTaskForm", () => {
  it("picks the folder in Rust's dialog, shows the base, warns about uncommitted changes, prefills verification", async () => {
    review.pickRepoFolder.mockResolvedValue("/home/me/project");
    review.detectVerification.mockResolvedValue(PROBE);
    render(<NewTaskForm />);
    fireEvent.click(screen.getByText("Choose…"));
    await screen.findByText(/2 uncommitted changes are/);
    expect(review.detectVerification).toHaveBeenCalledWith("/home/me/project");
    expect(screen.getByText("main")).toBeTruthy();
    expect(screen.getByText("abcdef012345")).toBeTruthy();
    expect((screen.getByLabelText(/Verification commands/) as HTMLTextAreaElement).value).toBe(
      "cargo test",
    );
    expect((screen.getByLabelText("Repository") as HTMLInputElement).value).toBe(
      "/home/me/project",
    );
  });

  it("lists installed CLIs, missing ones disabled, and catalog models", async () => {
    render(<NewTaskForm />);
    const select = screen.getByLabelText("Worker 1") as HTMLSelectElement;
    await waitFor(() =>
      expect(select.querySelector("option[value='model:acme/cheap']")).toBeTruthy(),
    );
    expect((select.querySelector("option[value='claude']") as HTMLOptionElement).disabled).toBe(
      false,
    );
    expect((select.querySelector("option[value='codex']") as HTMLOptionElement).disabled).toBe(
      true,
    );
    expect(select.querySelector("option[value='codex']")?.textContent).toContain("not installed");
    // The engine's label, as is.
    expect(select.querySelector("option[value='claude']")?.textContent).toBe("Claude Code (2.1.3)");
    expect(await seriousA11yFindings()).toEqual([]);
  });

  it("starts an exec: attempt with the typed request and opens it", async () => {
    review.detectVerification.mockResolvedValue({ ...PROBE, dirty: [] });
    review.start.mockResolvedValue(summary("att1", { state: "queued" }));
    render(<NewTaskForm />);
    const repo = screen.getByLabelText("Repository");
    fireEvent.change(repo, { target: { value: "/home/me/project" } });
    fireEvent.blur(repo);
    await waitFor(() =>
      expect((screen.getByLabelText(/Verification commands/) as HTMLTextAreaElement).value).toBe(
        "cargo test",
      ),
    );
    expect(screen.queryByText(/uncommitted/)).toBeNull();
    expect(document.querySelector("#task-verify-none")).toBeNull();
    fireEvent.change(screen.getByLabelText("Task"), { target: { value: "Fix the pager" } });
    fireEvent.change(screen.getByLabelText("Worker 1"), { target: { value: "exec:" } });
    expect(screen.getByText("Give the exec: worker a command.")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Command for worker 1"), {
      target: { value: "./fix.sh" },
    });
    fireEvent.change(screen.getByLabelText(/Extra locked globs/), {
      target: { value: "docs/**\n\n" },
    });
    fireEvent.change(screen.getByLabelText("Timeout (seconds)"), { target: { value: "120" } });
    await screen.findByRole("option", { name: "Rust reviewer" });
    fireEvent.change(screen.getByLabelText("Role preset"), { target: { value: "Rust reviewer" } });
    fireEvent.click(screen.getByLabelText(/Ask for a self-review/));
    fireEvent.click(screen.getByText("Start attempt"));
    await waitFor(() => expect(window.location.hash).toBe("#/review/att1"));
    expect(review.start).toHaveBeenCalledWith({
      repo: "/home/me/project",
      task: "Fix the pager",
      worker: "exec:./fix.sh",
      verify: ["cargo test"],
      lock: ["docs/**"],
      timeoutSecs: 120,
      preset: "Rust reviewer",
      allowNetwork: false,
      selfReview: true,
    });
  });

  it("compares two to five workers", async () => {
    review.startCompare.mockResolvedValue({ id: "cmp1", attempts: [] });
    render(<NewTaskForm />);
    fireEvent.change(screen.getByLabelText("Repository"), { target: { value: "/r" } });
    fireEvent.change(screen.getByLabelText("Task"), { target: { value: "Fix it" } });
    fireEvent.click(screen.getByLabelText(/Compare/));
    fireEvent.change(screen.getByLabelText("Worker 1"), { target: { value: "exec:" } });
    fireEvent.change(screen.getByLabelText("Command for worker 1"), {
      target: { value: "./a.sh" },
    });
    expect(screen.getByText("Compare needs 2 to 5 workers.")).toBeTruthy();
    await waitFor(() =>
      expect(
        screen.getByLabelText("Worker 2").querySelector("option[value='claude']"),
      ).toBeTruthy(),
    );
    fireEvent.change(screen.getByLabelText("Worker 2"), { target: { value: "claude" } });
    fireEvent.click(screen.getByText("Start 2 attempts"));
    await waitFor(() => expect(window.location.hash).toBe("#/review/compare/cmp1"));
    expect(review.startCompare).toHaveBeenCalledWith(
      expect.objectContaining({ repo: "/r", task: "Fix it", worker: "exec:./a.sh" }),
      ["exec:./a.sh", "claude"],
    );
  });

  it("starts the model worker on a model typed by id, suggesting the custom endpoint", async () => {
    review.start.mockResolvedValue(summary("att2", { state: "queued" }));
    render(<NewTaskForm />);
    fireEvent.change(screen.getByLabelText("Repository"), { target: { value: "/r" } });
    fireEvent.change(screen.getByLabelText("Task"), { target: { value: "Fix it" } });
    fireEvent.change(screen.getByLabelText("Worker 1"), { target: { value: "model:" } });
    expect(screen.getByText("Type the model's id as provider:model.")).toBeTruthy();
    const id = (await screen.findByLabelText("Model id for worker 1")) as HTMLInputElement;
    await waitFor(() => expect(id.placeholder).toBe("lab-vllm:model-name"));
    expect(document.querySelector("datalist option[value='lab-vllm:']")).toBeTruthy();
    expect(document.querySelector("datalist option[value='openrouter:']")).toBeNull();
    fireEvent.change(id, { target: { value: "lab-vllm:qwen3" } });
    expect((screen.getByLabelText("Worker 1") as HTMLSelectElement).value).toBe("model:");
    fireEvent.click(screen.getByText("Start attempt"));
    await waitFor(() => expect(window.location.hash).toBe("#/review/att2"));
    expect(review.start).toHaveBeenCalledWith(
      expect.objectContaining({ worker: "model:lab-vllm:qwen3" }),
    );
  });

  it("warns when the repository has no test command Switchyard could find", async () => {
    review.detectVerification.mockResolvedValue({ ...PROBE, dirty: [], verify: [] });
    render(<NewTaskForm />);
    const repo = screen.getByLabelText("Repository");
    fireEvent.change(repo, { target: { value: "/home/me/project" } });
    fireEvent.blur(repo);
    const warning = await screen.findByText(/No test command was found in this repository/);
    expect(warning.textContent).toContain("Switchyard runs no tests of its own");
    fireEvent.change(screen.getByLabelText(/Verification commands/), {
      target: { value: "sh test.sh" },
    });
    expect(document.querySelector("#task-verify-none")).toBeNull();
  });
});
