// How the Runs page words what the engine reports: states, reasons, modes, failure signals,
// context sources and money. Numbers are the engine's; this only formats them.
import { formatCost as reviewCost } from "../review/format";
import type { RunMode, RunReason } from "./types";

export { ago, formatElapsed, taskTitle } from "../review/format";

/** `$0.0123`, `$1.20`, and nothing spent as `$0.00`; `—` when unknown. */
export function formatCost(usd: number | null | undefined): string {
  return usd === 0 ? "$0.00" : reviewCost(usd);
}

export const MODES: readonly { id: RunMode; title: string; summary: string }[] = [
  { id: "single", title: "Single", summary: "One node, one model (or worker)." },
  {
    id: "collective",
    title: "Collective",
    summary: "Several diverse models at once; text answers are merged into one.",
  },
  {
    id: "cascade",
    title: "Cascade",
    summary: "Cheap model first; the next rung only on a real failure.",
  },
  { id: "plan", title: "Plan", summary: "Steps in order, each with its own model." },
  { id: "swarm", title: "Swarm", summary: "A DAG: independent steps run side by side." },
];

export function modeTitle(mode: RunMode): string {
  return MODES.find((m) => m.id === mode)?.title ?? mode;
}

/** The short reason shown in lists. */
export function reasonShort(reason: RunReason): string {
  return reason.replace(/_/g, " ");
}

/** `1,234 in · 567 out`. */
export function formatTokens(tokensIn: number, tokensOut: number): string {
  const n = (v: number) => v.toLocaleString("en-US");
  return `${n(tokensIn)} in · ${n(tokensOut)} out`;
}

/** A signed savings figure: `saved $0.0123`, `$0.0040 more`, or `—` without a baseline. */
export function formatSavings(usd: number | null | undefined): string {
  if (usd == null) return "—";
  if (usd < 0) return `${formatCost(-usd)} more`;
  return `saved ${formatCost(usd)}`;
}

/**
 * A savings figure for a run: nothing to compare when it spent nothing (and no baseline
 * tokens either).
 */
export function runSavings(costUsd: number | null, savingsUsd: number | null): string {
  if (costUsd === 0 && (savingsUsd ?? 0) === 0) return "—";
  return formatSavings(savingsUsd);
}

/** An engine error's message without a leading copy of its reason's name (`budget_exceeded: `). */
export function errorText(message: string): string {
  return message.replace(/^[a-z]+(?:_[a-z]+)+:\s*/, "");
}

/** Shares of the cap spent and reserved, each 0–100 (for the meter's bars). */
export function meterShares(
  spent: number | null,
  reserved: number | null,
  cap: number | null,
): { spent: number; reserved: number } {
  if (cap == null || cap <= 0) return { spent: 0, reserved: 0 };
  const clamp = (v: number) => Math.max(0, Math.min(100, v));
  const s = clamp(((spent ?? 0) / cap) * 100);
  return { spent: s, reserved: clamp(((reserved ?? 0) / cap) * 100 + s) - s };
}
