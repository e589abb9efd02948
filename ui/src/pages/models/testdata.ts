// Small hand-made catalog values for the Models page's tests.
import type { ModelCard, ModelSummary } from "../../ipc";

/** A summary with sensible defaults; `overrides` set what a test is about. */
export function summary(overrides: Partial<ModelSummary> & { id: string }): ModelSummary {
  return {
    name: overrides.id.split("/")[1] ?? overrides.id,
    provider: overrides.id.split("/")[0] ?? "vendor",
    pricing: { promptPerM: 1, completionPerM: 4 },
    blendedPerM: 1.75,
    contextLength: 128_000,
    tier: "standard",
    tags: [],
    categories: {},
    efficiency: {},
    outputSpeed: null,
    local: false,
    sources: 1,
    variants: 0,
    ...overrides,
  };
}

/** A model card with sensible defaults; `overrides` set what a test is about. */
export function card(overrides: Partial<ModelCard> & { id: string }): ModelCard {
  return {
    name: overrides.id.split("/")[1] ?? overrides.id,
    provider: overrides.id.split("/")[0] ?? "vendor",
    description: null,
    created: null,
    contextLength: 128_000,
    inputModalities: ["text"],
    outputModalities: ["text"],
    supportedParameters: [],
    huggingFaceId: null,
    pricing: { promptPerM: 1, completionPerM: 4 },
    tier: "standard",
    tags: [],
    categories: {},
    efficiency: {},
    benchmarks: [],
    matches: [],
    variants: [],
    outputSpeed: null,
    ttftSeconds: null,
    local: false,
    ...overrides,
  };
}
