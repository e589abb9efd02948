import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AddProviderRequest, ProviderStatus } from "../../ipc";
import { seriousA11yFindings } from "../../testing/axe";
import { provider } from "./testdata.test-util";

const KEY = "sk-UITEST-0123456789-abcd";

// A fake engine holding the provider list; it keeps only the last four characters of a key,
// as the real one shows them.
let providers: ProviderStatus[] = [];
let releaseSave: (() => void) | null = null;
let moveAnswer = false;
const setKey = vi.fn(async (id: string, key: string) => {
  await new Promise<void>((resolve) => {
    releaseSave = resolve;
  });
  const updated = providers.find((p) => p.id === id);
  if (!updated) throw new Error("no provider");
  const next: ProviderStatus = {
    ...updated,
    key: { state: "stored", last4: key.slice(-4), origin: updated.origin ?? "" },
  };
  providers = providers.map((p) => (p.id === id ? next : p));
  return next;
});

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    ipc: {
      ...original.ipc,
      lastDoctorReport: vi.fn(async () => null),
      runDoctor: vi.fn(async () => ({
        generatedAt: "2026-11-29T12:00:00Z",
        checks: [],
        gitVersion: null,
        workerClis: [],
        localEndpoints: [],
      })),
    },
    ipcEvents: { onDoctorUpdated: vi.fn(() => Promise.resolve(() => {})) },
    keysIpc: {
      providers: vi.fn(async () => providers),
      setKey,
      deleteKey: vi.fn(async (id: string) => {
        providers = providers.map((p) => (p.id === id ? { ...p, key: { state: "missing" } } : p));
        return true;
      }),
      test: vi.fn(async (id: string) => ({
        providerId: id,
        url: "http://127.0.0.1:9/v1/models",
        ok: true,
        latencyMs: 12,
        modelCount: 7,
        httpStatus: 200,
        error: null,
        keySource: "keychain",
      })),
      setBaseUrl: vi.fn(async (id: string, url: string | null) => {
        const current = providers.find((p) => p.id === id);
        if (!current) throw new Error("no provider");
        const next = { ...current, baseUrl: url ?? current.defaultBaseUrl ?? current.baseUrl };
        providers = providers.map((p) => (p.id === id ? next : p));
        return next;
      }),
      addProvider: vi.fn(async (request: AddProviderRequest) => {
        const added = provider(request.id, {
          name: request.name ?? request.id,
          kind: request.kind,
          baseUrl: request.baseUrl,
          defaultBaseUrl: null,
          custom: true,
          envVar: null,
        });
        providers = [...providers, added];
        return added;
      }),
      removeProvider: vi.fn(async () => null),
      // Stands for the native dialog: `moveAnswer` is what the user clicks in it.
      confirmKeyOrigin: vi.fn(async (id: string) => {
        const current = providers.find((p) => p.id === id);
        if (!current) throw new Error("no provider");
        if (!moveAnswer || current.key.state !== "originMismatch") return current;
        const next: ProviderStatus = {
          ...current,
          key: { state: "stored", last4: current.key.last4, origin: current.key.targetOrigin },
        };
        providers = providers.map((p) => (p.id === id ? next : p));
        return next;
      }),
    },
  };
});

const { keysIpc } = await import("../../ipc");
const { KeysPage } = await import("./KeysPage");

function row(id: string): HTMLElement {
  const el = document.querySelector<HTMLElement>(`[data-provider='${id}']`);
  if (!el) throw new Error(`no row ${id}`);
  return el;
}

function within(id: string, css: string): HTMLElement {
  const el = row(id).querySelector<HTMLElement>(css);
  if (!el) throw new Error(`no ${css} in ${id}`);
  return el;
}

describe("KeysPage", () => {
  beforeEach(() => {
    providers = [
      provider("openrouter", {
        key: { state: "environment", variable: "OPENROUTER_API_KEY", last4: "9f9f" },
      }),
      provider("openai"),
      provider("ollama", {
        kind: "local",
        envVar: null,
        key: { state: "notNeeded" },
        local: { reachable: true, modelCount: 3, error: null },
      }),
    ];
    vi.clearAllMocks();
  });

  afterEach(cleanup);

  it("lists providers with their status badges by section", async () => {
    render(<KeysPage />);
    await waitFor(() => expect(within("openai", ".key-status").textContent).toBe("No key"));
    expect(within("openrouter", ".key-status").textContent).toBe("From environment …9f9f");
    expect(within("ollama", ".key-status").textContent).toBe("Reachable · 3 models");
    expect(row("ollama").closest("[data-group]")?.getAttribute("data-group")).toBe("local");
    expect(row("ollama").querySelector(".key-add")).toBeNull();
    expect(document.querySelector("#keychain-banner")).toBeNull();
    expect(screen.getByText("1 of 2 keys set · 1 of 1 local servers reachable")).toBeTruthy();
    expect(await seriousA11yFindings()).toEqual([]);
  });

  it("empties the masked field before the save goes out and never renders the key", async () => {
    render(<KeysPage />);
    await waitFor(() => within("openai", ".key-add"));
    fireEvent.click(within("openai", ".key-add"));
    const input = within("openai", "input.key-input") as HTMLInputElement;
    expect(input.type).toBe("password");
    fireEvent.input(input, { target: { value: KEY } });
    fireEvent.click(within("openai", ".key-save"));

    // The save is in flight: the field is already empty.
    await waitFor(() => expect(setKey).toHaveBeenCalledWith("openai", KEY));
    expect(input.value).toBe("");
    await act(async () => releaseSave?.());

    await waitFor(() => expect(within("openai", ".key-status").textContent).toBe("Key …abcd"));
    expect(row("openai").querySelector("input.key-input")).toBeNull();
    expect(document.body.innerHTML).not.toContain(KEY);
  });

  it("tests a provider and shows model count and latency", async () => {
    providers[1] = provider("openai", {
      key: { state: "stored", last4: "abcd", origin: "https://api.openai.com" },
    });
    render(<KeysPage />);
    await waitFor(() => within("openai", ".key-test"));
    fireEvent.click(within("openai", ".key-test"));
    await waitFor(() =>
      expect(within("openai", ".test-result").textContent).toContain("7 models · 12 ms"),
    );
    expect(keysIpc.test).toHaveBeenCalledWith("openai");
  });

  it("disables Test until a key exists", async () => {
    render(<KeysPage />);
    await waitFor(() => within("openai", ".key-test"));
    expect((within("openai", ".key-test") as HTMLButtonElement).disabled).toBe(true);
    expect((within("openrouter", ".key-test") as HTMLButtonElement).disabled).toBe(false);
  });

  it("deletes a key only after confirming", async () => {
    providers[1] = provider("openai", {
      key: { state: "stored", last4: "abcd", origin: "https://api.openai.com" },
    });
    render(<KeysPage />);
    await waitFor(() => within("openai", ".key-delete"));
    fireEvent.click(within("openai", ".key-delete"));
    expect(keysIpc.deleteKey).not.toHaveBeenCalled();
    fireEvent.click(within("openai", ".confirm-delete"));
    await waitFor(() => expect(within("openai", ".key-status").textContent).toBe("No key"));
    expect(keysIpc.deleteKey).toHaveBeenCalledWith("openai");
  });

  it("edits a base URL", async () => {
    render(<KeysPage />);
    await waitFor(() => within("openai", ".url-edit"));
    fireEvent.click(within("openai", ".url-edit"));
    const input = within("openai", "input.url-input") as HTMLInputElement;
    fireEvent.change(input, { target: { value: "ftp://nope" } });
    expect((within("openai", ".url-save") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(input, { target: { value: "http://127.0.0.1:9/v1" } });
    fireEvent.click(within("openai", ".url-save"));
    await waitFor(() =>
      expect(within("openai", ".base-url").textContent).toBe("http://127.0.0.1:9/v1"),
    );
    expect(keysIpc.setBaseUrl).toHaveBeenCalledWith("openai", "http://127.0.0.1:9/v1");
    expect(within("openai", ".provider-tag.accent").textContent).toBe("custom URL");
  });

  it("adds a custom endpoint with an id derived from its name", async () => {
    render(<KeysPage />);
    await waitFor(() => screen.getByText("Add endpoint"));
    fireEvent.click(screen.getByText("Add endpoint"));
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Lab vLLM" } });
    fireEvent.change(screen.getByLabelText("Base URL"), {
      target: { value: "http://127.0.0.1:8000/v1" },
    });
    fireEvent.click(screen.getByText("Add provider"));
    await waitFor(() => expect(within("lab-vllm", ".provider-name").textContent).toBe("Lab vLLM"));
    expect(keysIpc.addProvider).toHaveBeenCalledWith({
      id: "lab-vllm",
      name: "Lab vLLM",
      kind: "openai-compatible",
      baseUrl: "http://127.0.0.1:8000/v1",
    });
    expect(row("lab-vllm").closest("[data-group]")?.getAttribute("data-group")).toBe("custom");
  });

  it("shows the keychain's reason and fixes when keys cannot be stored", async () => {
    const message =
      "no keychain available: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset)";
    providers = providers.map((p) =>
      p.kind === "local" ? p : { ...p, key: { state: "unavailable", message } },
    );
    render(<KeysPage />);
    await waitFor(() =>
      expect(document.querySelector("#keychain-reason")?.textContent).toBe(message),
    );
    expect(document.querySelector("#keychain-banner")?.textContent).toContain("dbus-run-session");
    expect((within("openai", ".key-add") as HTMLButtonElement).disabled).toBe(true);
    expect(within("openai", ".env-hint").textContent).toContain("OPENAI_API_KEY");
  });

  it("shows where a key is held and moves it only through the native confirmation", async () => {
    const moved = provider("openai", {
      baseUrl: "http://127.0.0.1:9/v1",
      origin: "http://127.0.0.1:9",
      key: {
        state: "originMismatch",
        last4: "abcd",
        origin: "https://api.openai.com",
        targetOrigin: "http://127.0.0.1:9",
        variable: null,
      },
    });
    providers[1] = moved;
    moveAnswer = false;
    render(<KeysPage />);
    await waitFor(() => within("openai", ".key-move"));
    expect(within("openai", ".key-origin").textContent).toBe(
      "key held for https://api.openai.com · not sent to http://127.0.0.1:9",
    );
    expect(within("openai", ".key-status").textContent).toBe("Key held elsewhere");
    expect((within("openai", ".key-test") as HTMLButtonElement).disabled).toBe(true);

    // Declined in the dialog: nothing moves, and the row says so.
    fireEvent.click(within("openai", ".key-move"));
    await waitFor(() =>
      expect(within("openai", ".move-note").textContent).toContain(
        "Not moved: the key stays with https://api.openai.com",
      ),
    );
    expect(keysIpc.confirmKeyOrigin).toHaveBeenCalledWith("openai");
    expect(row("openai").querySelector(".key-move")).not.toBeNull();

    // Confirmed: the key is now held for the new origin.
    moveAnswer = true;
    fireEvent.click(within("openai", ".key-move"));
    await waitFor(() =>
      expect(within("openai", ".key-origin").textContent).toBe("key held for http://127.0.0.1:9"),
    );
    expect(row("openai").querySelector(".key-move")).toBeNull();
    expect(row("openai").querySelector(".move-note")).toBeNull();
    expect(within("openai", ".key-status").textContent).toBe("Key …abcd");
    expect((within("openai", ".key-test") as HTMLButtonElement).disabled).toBe(false);
  });

  it("says which origin a new key will be sent to", async () => {
    render(<KeysPage />);
    await waitFor(() => within("openai", ".key-add"));
    fireEvent.click(within("openai", ".key-add"));
    expect(within("openai", ".key-form-origin").textContent).toBe("https://api.openai.com");
  });
});
