// The run list's filter bar as the engine's `RunFilter` (the engine does the filtering).
import type { RunFilter, RunMode, RunState, RunSummary } from "./types";

export interface ListFilter {
  state: RunState | "";
  mode: RunMode | "";
  launcher: string;
  text: string;
}

export const NO_FILTER: ListFilter = { state: "", mode: "", launcher: "", text: "" };

export function runFilter(filter: ListFilter): RunFilter {
  const trimmed = (s: string) => (s.trim() === "" ? null : s.trim());
  return {
    state: filter.state === "" ? null : filter.state,
    mode: filter.mode === "" ? null : filter.mode,
    launcher: trimmed(filter.launcher),
    text: trimmed(filter.text),
  };
}

export function isFiltered(filter: ListFilter): boolean {
  return Object.values(runFilter(filter)).some((v) => v !== null);
}

/** Launchers seen so far (app, cli, agents), for the launcher field's suggestions. */
export function launchersOf(runs: readonly RunSummary[], known: readonly string[]): string[] {
  return [...new Set([...known, ...runs.map((r) => r.launcher)])].sort();
}
