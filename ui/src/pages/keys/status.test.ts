import { describe, expect, it } from "vitest";
import type { DoctorReport, ProviderStatus, ProviderTest } from "../../ipc";
import {
  baseUrlProblem,
  canTest,
  groupProviders,
  idFromName,
  idProblem,
  keyBadge,
  keychainFixes,
  keychainProblem,
  keyHolder,
  statusBadge,
  summary,
  testLine,
  urlOverridden,
} from "./status";
import { provider } from "./testdata.test-util";

describe("badges", () => {
  it("shows only the last four characters and where a key comes from", () => {
    expect(
      keyBadge({ state: "stored", last4: "55d2", origin: "https://api.example.com" }, false),
    ).toMatchObject({
      label: "Key …55d2",
      tone: "ok",
    });
    const env = keyBadge(
      { state: "environment", variable: "DEEPSEEK_API_KEY", last4: "6071" },
      false,
    );
    expect(env.label).toBe("From environment …6071");
    expect(env.title).toContain("DEEPSEEK_API_KEY");
  });

  it("says where a stored key is held and when it is not sent", () => {
    const mismatch = {
      state: "originMismatch",
      last4: "55d2",
      origin: "https://api.openai.com",
      targetOrigin: "http://127.0.0.1:9",
      variable: null,
    } as const;
    expect(keyBadge(mismatch, false)).toMatchObject({ label: "Key held elsewhere", tone: "warn" });
    expect(keyBadge(mismatch, false).title).toContain("http://127.0.0.1:9");
    expect(keyHolder(mismatch)).toEqual({
      origin: "https://api.openai.com",
      mismatch: "http://127.0.0.1:9",
    });
    const env = { ...mismatch, variable: "OPENAI_API_KEY" };
    expect(keyBadge(env, false).label).toBe("Env key not sent here");
    expect(keyHolder(env)).toBeNull();
    const insecure = { state: "insecureOrigin", last4: "55d2", origin: "http://10.0.0.5" } as const;
    expect(keyBadge(insecure, true)).toMatchObject({ tone: "fail" });
    expect(keyHolder(insecure)).toEqual({ origin: "http://10.0.0.5", mismatch: null });
    expect(canTest(provider("openai", { key: mismatch }))).toBe(false);
  });

  it("marks a missing key as a warning unless the provider is custom", () => {
    expect(keyBadge({ state: "missing" }, false)).toMatchObject({ label: "No key", tone: "warn" });
    expect(keyBadge({ state: "missing" }, true)).toMatchObject({
      label: "No key (optional)",
      tone: "muted",
    });
  });

  it("carries the keychain's reason in the tooltip", () => {
    const badge = keyBadge({ state: "unavailable", message: "no keychain available: x" }, false);
    expect(badge).toMatchObject({ label: "Keychain unavailable", tone: "fail" });
    expect(badge.title).toBe("no keychain available: x");
  });

  it("describes local servers by reachability, not by key", () => {
    const up = provider("ollama", {
      kind: "local",
      key: { state: "notNeeded" },
      local: { reachable: true, modelCount: 1, error: null },
    });
    expect(statusBadge(up)).toMatchObject({ label: "Reachable · 1 model", tone: "ok" });
    const down = provider("lmstudio", {
      kind: "local",
      key: { state: "notNeeded" },
      local: { reachable: false, modelCount: null, error: "connection refused" },
    });
    expect(statusBadge(down)).toMatchObject({
      label: "Not reachable",
      tone: "warn",
      title: "connection refused",
    });
  });
});

describe("actions", () => {
  it("lets Test run only when a key can be found or none is needed", () => {
    expect(canTest(provider("openai", { key: { state: "missing" } }))).toBe(false);
    expect(
      canTest(
        provider("openai", {
          key: { state: "stored", last4: "abcd", origin: "https://api.example.com" },
        }),
      ),
    ).toBe(true);
    expect(
      canTest(provider("openai", { key: { state: "environment", variable: "X", last4: "abcd" } })),
    ).toBe(true);
    expect(canTest(provider("openai", { key: { state: "unavailable", message: "m" } }))).toBe(
      false,
    );
    expect(canTest(provider("lab", { custom: true, key: { state: "missing" } }))).toBe(true);
    expect(canTest(provider("ollama", { kind: "local", key: { state: "notNeeded" } }))).toBe(true);
  });

  it("knows when a built-in URL was changed", () => {
    expect(urlOverridden(provider("openai"))).toBe(false);
    expect(urlOverridden(provider("openai", { baseUrl: "http://127.0.0.1:9/v1" }))).toBe(true);
    expect(
      urlOverridden(provider("lab", { custom: true, defaultBaseUrl: null, baseUrl: "http://h" })),
    ).toBe(false);
  });
});

describe("groups and summary", () => {
  const list: ProviderStatus[] = [
    provider("openrouter", {
      key: { state: "stored", last4: "1111", origin: "https://api.example.com" },
    }),
    provider("openai", { key: { state: "environment", variable: "OPENAI_API_KEY", last4: "2" } }),
    provider("anthropic", { kind: "anthropic" }),
    provider("ollama", {
      kind: "local",
      key: { state: "notNeeded" },
      local: { reachable: true, modelCount: 3, error: null },
    }),
    provider("lmstudio", {
      kind: "local",
      key: { state: "notNeeded" },
      local: { reachable: false, modelCount: null, error: "refused" },
    }),
    provider("artificialanalysis", { kind: "data-source" }),
    provider("lab", { custom: true, defaultBaseUrl: null }),
  ];

  it("sorts providers into sections, keeping the engine's order", () => {
    const groups = groupProviders(list);
    expect(groups.map((g) => [g.id, g.providers.map((p) => p.id)])).toEqual([
      ["cloud", ["openrouter", "openai", "anthropic"]],
      ["custom", ["lab"]],
      ["local", ["ollama", "lmstudio"]],
      ["data", ["artificialanalysis"]],
    ]);
  });

  it("keeps the custom section even when empty (it holds the add form)", () => {
    const ids = groupProviders(list.filter((p) => !p.custom && p.kind !== "local")).map(
      (g) => g.id,
    );
    expect(ids).toEqual(["cloud", "custom", "data"]);
  });

  it("counts keys of built-ins and reachable local servers", () => {
    expect(summary(list)).toBe("2 of 4 keys set · 1 of 2 local servers reachable");
  });
});

describe("keychain banner", () => {
  const doctor = (status: "ok" | "fail", detail: string): DoctorReport => ({
    generatedAt: "2026-11-29T12:00:00Z",
    checks: [{ id: "keychain", title: "Keychain", status, detail }],
    gitVersion: null,
    confinement: null,
    workerClis: [],
    localEndpoints: [],
    overall: status,
    workerSummary: "none of 0 worker CLIs installed",
  });

  it("takes the exact reason from a provider status first", () => {
    const message =
      "no keychain available: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset)";
    const problem = keychainProblem(
      [provider("openai", { key: { state: "unavailable", message } })],
      doctor("fail", "other words"),
    );
    expect(problem?.reason).toBe(message);
    expect(problem?.fixes.some((f) => f.includes("gnome-keyring-daemon"))).toBe(true);
  });

  it("falls back to the doctor's failed keychain check, and is silent when it works", () => {
    const list = [provider("openai", { key: { state: "missing" } })];
    expect(
      keychainProblem(list, doctor("fail", "keychain locked or access denied: x"))?.reason,
    ).toBe("keychain locked or access denied: x");
    expect(keychainProblem(list, doctor("ok", "reachable and writable"))).toBeNull();
    expect(keychainProblem(null, null)).toBeNull();
  });

  it("suggests the fix that matches the failure and always the environment fallback", () => {
    const locked = keychainFixes("keychain locked or access denied: collection is locked");
    expect(locked[0]).toContain("Unlock");
    const noService = keychainFixes(
      "no keychain available: Failed to connect to socket /run/user/1000/bus: No such file",
    );
    expect(noService[0]).toContain("Secret Service");
    expect(keychainFixes("keychain error: something else")[0]).toContain("available and unlocked");
    const timeout = keychainFixes("keychain did not answer within 5s");
    expect(timeout[0]).toContain("running and unlocked");
    for (const fixes of [locked, timeout, keychainFixes("anything")]) {
      expect(fixes[fixes.length - 1]).toContain("environment variable");
    }
  });
});

describe("test results", () => {
  const report = (over: Partial<ProviderTest>): ProviderTest => ({
    providerId: "openai",
    url: "http://127.0.0.1:9/v1/models",
    ok: true,
    latencyMs: 312,
    modelCount: 42,
    httpStatus: 200,
    error: null,
    keySource: "keychain",
    ...over,
  });

  it("shows model count and latency on success", () => {
    expect(testLine(report({}))).toEqual({ ok: true, text: "42 models · 312 ms" });
    expect(testLine(report({ modelCount: 1 })).text).toBe("1 model · 312 ms");
  });

  it("shows the provider's own message and status on failure", () => {
    expect(
      testLine(report({ ok: false, modelCount: null, httpStatus: 401, error: "Invalid key" })),
    ).toEqual({ ok: false, text: "Invalid key (HTTP 401) · 312 ms" });
    expect(testLine(report({ ok: false, httpStatus: null, error: null })).text).toBe(
      "No answer · 312 ms",
    );
  });
});

describe("add-provider checks", () => {
  it("derives an id the engine accepts from a display name", () => {
    expect(idFromName("Lab vLLM")).toBe("lab-vllm");
    expect(idFromName("  Café Proxy #2 ")).toBe("cafe-proxy-2");
    expect(idFromName("9 lives")).toBe("p-9-lives");
    expect(idFromName("!!!")).toBe("");
    const long = idFromName(`${"a".repeat(30)} ${"b".repeat(30)}`);
    expect(long.length).toBeLessThanOrEqual(40);
    expect(idProblem(long, [])).toBeNull();
  });

  it("refuses ids the engine would refuse, and taken ones", () => {
    expect(idProblem("lab-vllm", [])).toBeNull();
    expect(idProblem("", [])).not.toBeNull();
    expect(idProblem("Lab", [])).not.toBeNull();
    expect(idProblem("a/b", [])).not.toBeNull();
    expect(idProblem("a".repeat(41), [])).not.toBeNull();
    expect(idProblem("openai", ["openai"])).toContain("already");
  });

  it("checks base URLs like the engine", () => {
    expect(baseUrlProblem("http://127.0.0.1:8000/v1")).toBeNull();
    expect(baseUrlProblem(" https://api.example.com/v1/ ")).toBeNull();
    expect(baseUrlProblem("")).not.toBeNull();
    expect(baseUrlProblem("127.0.0.1:8000")).not.toBeNull();
    expect(baseUrlProblem("ftp://example.com")).toContain("http");
    expect(baseUrlProblem("https://user:pw@example.com")).toContain("credentials");
    expect(baseUrlProblem("https://example.com/v1?key=x")).toContain("query");
  });
});
