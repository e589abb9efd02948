// Pure rules of the Keys page (tested in status.test.ts): badges, grouping, the keychain
// banner, Test summaries and the add-provider form checks. No key ever reaches this module:
// statuses carry presence, source and the last four characters only.
import type {
  DoctorReport,
  KeyStatus,
  ProviderKind,
  ProviderStatus,
  ProviderTest,
} from "../../ipc";

export type Tone = "ok" | "warn" | "fail" | "muted" | "accent";

export interface Badge {
  label: string;
  tone: Tone;
  /** Longer explanation for a tooltip. */
  title: string;
}

/** What the status badge of a provider says. */
export function statusBadge(provider: ProviderStatus): Badge {
  if (provider.kind === "local") {
    const local = provider.local;
    if (!local) {
      return { label: "Local", tone: "muted", title: "A model server on this machine" };
    }
    return local.reachable
      ? {
          label: `Reachable · ${plural(local.modelCount ?? 0, "model")}`,
          tone: "ok",
          title: `Answered at ${provider.baseUrl}`,
        }
      : {
          label: "Not reachable",
          tone: "warn",
          title: local.error ?? `No answer at ${provider.baseUrl}`,
        };
  }
  return keyBadge(provider.key, provider.custom);
}

/** The key part of a badge: stored, held for another origin, from the environment, missing,
 * or keychain trouble. */
export function keyBadge(key: KeyStatus, custom: boolean): Badge {
  switch (key.state) {
    case "stored":
      return {
        label: `Key …${key.last4}`,
        tone: "ok",
        title: `Stored in the OS keychain for ${key.origin} and sent only there; only the last 4 characters are ever shown`,
      };
    case "originMismatch":
      return key.variable
        ? {
            label: "Env key not sent here",
            tone: "warn",
            title: `${key.variable} goes only to ${key.origin} or to this machine, not to ${key.targetOrigin}`,
          }
        : {
            label: "Key held elsewhere",
            tone: "warn",
            title: `The key …${key.last4} is held for ${key.origin}; it is not sent to ${key.targetOrigin} until you move it`,
          };
    case "insecureOrigin":
      return {
        label: "Key not sent (http)",
        tone: "fail",
        title: `The key …${key.last4} is held for ${key.origin}, plain http to another host; keys go only over https or to this machine`,
      };
    case "environment":
      return {
        label: `From environment …${key.last4}`,
        tone: "accent",
        title: `Read from ${key.variable} at call time; nothing is stored`,
      };
    case "missing":
      return custom
        ? {
            label: "No key (optional)",
            tone: "muted",
            title: "Sent when stored; many local endpoints need none",
          }
        : {
            label: "No key",
            tone: "warn",
            title: "Add a key, or set the provider's environment variable",
          };
    case "notNeeded":
      return { label: "No key needed", tone: "muted", title: "This provider takes no key" };
    case "unavailable":
      return { label: "Keychain unavailable", tone: "fail", title: key.message };
  }
}

/** Whether a Test can find a key (or needs none); otherwise the button explains why not. */
export function canTest(provider: ProviderStatus): boolean {
  if (provider.custom || provider.kind === "local") {
    return true;
  }
  return provider.key.state === "stored" || provider.key.state === "environment";
}

/** Where a stored key is held ("Key held for …"), or `null` when none is stored. */
export function keyHolder(key: KeyStatus): { origin: string; mismatch: string | null } | null {
  switch (key.state) {
    case "stored":
      return { origin: key.origin, mismatch: null };
    case "originMismatch":
      return key.variable ? null : { origin: key.origin, mismatch: key.targetOrigin };
    case "insecureOrigin":
      return { origin: key.origin, mismatch: null };
    default:
      return null;
  }
}

/** Whether the keychain holds a key for this provider (for any origin). */
export function hasStoredKey(key: KeyStatus): boolean {
  return keyHolder(key) !== null;
}

/** Whether a key can be stored for the provider at all (local servers take none). */
export function takesKey(provider: ProviderStatus): boolean {
  return provider.kind !== "local";
}

/** Whether the user pointed a built-in provider away from its default URL. */
export function urlOverridden(provider: ProviderStatus): boolean {
  return provider.defaultBaseUrl !== null && provider.baseUrl !== provider.defaultBaseUrl;
}

export type GroupId = "cloud" | "custom" | "local" | "data";

export interface ProviderGroup {
  id: GroupId;
  title: string;
  description: string;
  providers: ProviderStatus[];
}

const GROUPS: readonly Omit<ProviderGroup, "providers">[] = [
  { id: "cloud", title: "Model providers", description: "Cloud APIs that answer prompts." },
  {
    id: "custom",
    title: "Your endpoints",
    description: "OpenAI-compatible or Anthropic servers you added (vLLM, proxies, gateways).",
  },
  { id: "local", title: "Local servers", description: "Models on this machine; free, no key." },
  {
    id: "data",
    title: "Data sources",
    description: "Keys the model catalog uses to fetch benchmark data.",
  },
];

function groupOf(provider: ProviderStatus): GroupId {
  if (provider.custom) {
    return "custom";
  }
  if (provider.kind === "local") {
    return "local";
  }
  return provider.kind === "data-source" ? "data" : "cloud";
}

/** Providers by section, each keeping the engine's order. The custom section is always there
 * (it holds the add form); other sections only when they have providers. */
export function groupProviders(providers: readonly ProviderStatus[]): ProviderGroup[] {
  return GROUPS.map((group) => ({
    ...group,
    providers: providers.filter((p) => groupOf(p) === group.id),
  })).filter((group) => group.id === "custom" || group.providers.length > 0);
}

/** "3 of 5 keys set · 1 of 2 local servers reachable" */
export function summary(providers: readonly ProviderStatus[]): string {
  const keyed = providers.filter((p) => p.kind !== "local" && !p.custom);
  const set = keyed.filter((p) => p.key.state === "stored" || p.key.state === "environment");
  const local = providers.filter((p) => p.kind === "local");
  const reachable = local.filter((p) => p.local?.reachable);
  const parts = [`${set.length} of ${keyed.length} keys set`];
  if (local.length > 0) {
    parts.push(`${reachable.length} of ${local.length} local servers reachable`);
  }
  return parts.join(" · ");
}

export interface KeychainProblem {
  /** The keychain's own words: what is wrong. */
  reason: string;
  /** What to do about it, most likely fix first. */
  fixes: string[];
}

/** Why keys cannot be stored, from the provider statuses or else the doctor's keychain check;
 * `null` when the keychain works. */
export function keychainProblem(
  providers: readonly ProviderStatus[] | null,
  doctor: DoctorReport | null,
): KeychainProblem | null {
  const fromStatus = providers
    ?.map((p) => p.key)
    .find((k): k is Extract<KeyStatus, { state: "unavailable" }> => k.state === "unavailable");
  const check = doctor?.checks.find((c) => c.id === "keychain" && c.status === "fail");
  const reason = fromStatus?.message ?? check?.detail;
  return reason ? { reason, fixes: keychainFixes(reason) } : null;
}

/** How to fix a keychain failure, by what its message says. */
export function keychainFixes(reason: string): string[] {
  const text = reason.toLowerCase();
  const fixes: string[] = [];
  if (text.includes("locked") || text.includes("access denied")) {
    fixes.push(
      "Unlock the keychain (on Linux: the “login” collection in Seahorse or your keyring tool), then press Check again.",
    );
  } else if (
    text.includes("no keychain available") ||
    text.includes("d-bus") ||
    text.includes("dbus") ||
    text.includes("secret service")
  ) {
    fixes.push(
      "Linux: run a Secret Service — log in to a desktop session with GNOME Keyring or KWallet, or enable the Secret Service in KeePassXC.",
      "Headless: start Switchyard under `dbus-run-session` after `gnome-keyring-daemon --unlock --components=secrets`.",
    );
  } else if (text.includes("did not answer")) {
    fixes.push("Make sure the keychain service is running and unlocked, then press Check again.");
  } else {
    fixes.push("Make sure the system keychain is available and unlocked, then press Check again.");
  }
  fixes.push(
    "Or set a provider's environment variable (e.g. `OPENROUTER_API_KEY`) before starting Switchyard: it is read at call time and shown as “from environment”. Keys are never written anywhere else.",
  );
  return fixes;
}

export interface TestLine {
  ok: boolean;
  text: string;
}

/** "42 models · 312 ms", or the provider's own message with its HTTP status. */
export function testLine(report: ProviderTest): TestLine {
  if (report.ok) {
    return {
      ok: true,
      text: `${plural(report.modelCount ?? 0, "model")} · ${report.latencyMs} ms`,
    };
  }
  const status = report.httpStatus === null ? "" : ` (HTTP ${report.httpStatus})`;
  return {
    ok: false,
    text: `${report.error ?? "No answer"}${status} · ${report.latencyMs} ms`,
  };
}

export const KIND_LABEL: Record<ProviderKind, string> = {
  "openai-compatible": "OpenAI-compatible",
  anthropic: "Anthropic",
  local: "Local",
  "data-source": "Data source",
};

const MAX_ID_LEN = 40;

/** A provider id from a display name: lowercase, `-` between words, starting with a letter. */
export function idFromName(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  const id = /^[a-z]/.test(slug) ? slug : slug ? `p-${slug}` : "";
  return id.slice(0, MAX_ID_LEN).replace(/-+$/, "");
}

/** The same rule as the engine: `[a-z][a-z0-9_-]*`, at most 40 characters. */
export function idProblem(id: string, taken: readonly string[]): string | null {
  if (id.length === 0) {
    return "Give it an id.";
  }
  if (id.length > MAX_ID_LEN) {
    return `At most ${MAX_ID_LEN} characters.`;
  }
  if (!/^[a-z][a-z0-9_-]*$/.test(id)) {
    return "Start with a lowercase letter; then a–z, 0–9, “-” or “_”.";
  }
  if (taken.includes(id)) {
    return `“${id}” is already a provider.`;
  }
  return null;
}

/** Why a base URL would be refused (the engine checks again), or `null`. */
export function baseUrlProblem(url: string): string | null {
  const text = url.trim();
  if (text.length === 0) {
    return "Enter a base URL, e.g. http://127.0.0.1:8000/v1.";
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return "Not a URL; expected e.g. http://127.0.0.1:8000/v1.";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return "Use http:// or https://.";
  }
  if (parsed.username || parsed.password) {
    return "No credentials in the URL; store the key instead.";
  }
  if (parsed.search || parsed.hash) {
    return "A base URL has no query or fragment.";
  }
  return null;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
