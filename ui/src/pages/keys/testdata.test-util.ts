// Provider rows for tests, shaped exactly like `list_providers` returns them.
import type { ProviderStatus } from "../../ipc";

const DEFAULT_URLS: Record<string, string> = {
  openrouter: "https://openrouter.ai/api/v1",
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  ollama: "http://127.0.0.1:11434/v1",
  lmstudio: "http://127.0.0.1:1234/v1",
  artificialanalysis: "https://artificialanalysis.ai/api/v2",
};

/** A built-in-looking provider `id`, overridden field by field. */
export function provider(id: string, over: Partial<ProviderStatus> = {}): ProviderStatus {
  const url = DEFAULT_URLS[id] ?? `https://${id}.example.com/v1`;
  return {
    id,
    name: id.charAt(0).toUpperCase() + id.slice(1),
    kind: "openai-compatible",
    baseUrl: url,
    origin: new URL(url).origin,
    defaultBaseUrl: url,
    custom: false,
    envVar: `${id.toUpperCase()}_API_KEY`,
    key: { state: "missing" },
    local: null,
    ...over,
  };
}
