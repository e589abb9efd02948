// How routing answers read on the page. Pure.

import type { BudgetTierView } from "../../ipc";
import { CATEGORY_LABEL, formatPrice, formatScore1, formatShare, UNKNOWN } from "../models/format";
import type { Budget, Classification, OutcomeEvidence, Reason, Rejections } from "./types";

/** The needs the form offers, with the ids `RouteTaskRequest.needs` takes. */
export const NEEDS: readonly { id: string; label: string }[] = [
  { id: "vision", label: "Vision" },
  { id: "tools", label: "Tools" },
  { id: "long-context", label: "Long context" },
  { id: "structured-output", label: "Structured output" },
];

export function categoryLabel(category: string): string {
  return (CATEGORY_LABEL as Record<string, string>)[category] ?? category;
}

/** Signed points with one decimal: `+1.2`, `−4.3`, `0.0`; `—` when unknown. */
export function signed(points: number | null): string {
  if (points === null) return UNKNOWN;
  const rounded = Math.round(points * 10) / 10;
  if (rounded === 0) return "0.0";
  return `${rounded > 0 ? "+" : "−"}${Math.abs(rounded).toFixed(1)}`;
}

/** A step's budget in words, from the tiers Rust defines (`useBudgetTiers`). */
export function describeBudget(budget: Budget, tiers: readonly BudgetTierView[]): string {
  const tier = tiers.find((t) => t.tier === budget.tier);
  const base = tier ? `${tier.label} (${tier.band})` : budget.tier;
  return budget.maxPricePerM === null
    ? base
    : `${base}, at most ${formatPrice(budget.maxPricePerM)}/M`;
}

export interface Fact {
  label: string;
  value: string;
  /** `up`/`down` colour a score change; `plain` does not. */
  tone: "up" | "down" | "plain";
}

/** Whether points move a score (unknown counts as no move). */
function moves(points: number | null): boolean {
  return points !== null && Math.abs(points) >= 0.05;
}

function tone(points: number | null): Fact["tone"] {
  if (points === null || !moves(points)) return "plain";
  return points > 0 ? "up" : "down";
}

/** `2 of 9 verified`, or `no outcomes yet`: what a learned estimate rests on. */
export function outcomesText(evidence: OutcomeEvidence): string {
  const total = evidence.successes + evidence.failures;
  return total === 0 ? "no outcomes yet" : `${evidence.successes} of ${total} verified`;
}

/** The numbers behind a pick, in the order they add up to the blended score. */
export function reasonFacts(reason: Reason, evidence: OutcomeEvidence): Fact[] {
  const facts: Fact[] = [
    {
      label: `${categoryLabel(reason.category)} score`,
      value: formatScore1(reason.categoryScore),
      tone: "plain",
    },
    { label: "Coverage", value: formatShare(reason.coverage), tone: "plain" },
  ];
  if (moves(reason.coverageAdjustment)) {
    facts.push({
      label: "Missing evidence",
      value: signed(reason.coverageAdjustment),
      tone: tone(reason.coverageAdjustment),
    });
  }
  facts.push({
    label: "Feedback",
    value:
      reason.feedbackCount === 0
        ? "no ratings"
        : `${signed(reason.feedbackAdjustment)} from ${reason.feedbackCount} rating${
            reason.feedbackCount === 1 ? "" : "s"
          }${reason.feedbackMean === null ? "" : ` (mean ${reason.feedbackMean.toFixed(1)})`}`,
    tone: tone(reason.feedbackAdjustment),
  });
  if (moves(reason.contextBoost) || reason.contextMetrics.length > 0) {
    facts.push({
      label: "Context",
      value: signed(reason.contextBoost),
      tone: tone(reason.contextBoost),
    });
  }
  facts.push({
    label: "Price",
    value: `${formatPrice(reason.pricePerM)} in · ${formatPrice(reason.completionPricePerM)} out /M`,
    tone: "plain",
  });
  facts.push({
    label: "Outcomes",
    value:
      evidence.successes + evidence.failures === 0
        ? "no outcomes yet"
        : `${signed(reason.learnedAdjustment)} from ${outcomesText(evidence)}`,
    tone: tone(reason.learnedAdjustment),
  });
  facts.push(
    { label: "Blended", value: formatScore1(reason.blendedScore), tone: "plain" },
    {
      label: "Est. success",
      value: `${formatShare(reason.estimatedSuccess)} (prior ${formatShare(evidence.prior)})`,
      tone: "plain",
    },
    {
      label: "Per verified success",
      value:
        reason.costPerSuccess === null || reason.costPerSuccess === 0
          ? formatPrice(reason.costPerSuccess)
          : `${formatPrice(reason.costPerSuccess)}/M`,
      tone: "plain",
    },
    { label: "Rank", value: `#${reason.rank} of ${reason.qualified}`, tone: "plain" },
  );
  return facts;
}

/** One feature that raised the chosen category, as the page shows it. */
export interface Evidence {
  /** The word or characters from the task, or a cue's name. */
  label: string;
  /** `+1.24`: how much it raised the category's score. */
  weight: string;
  /** Words and characters come from the task; cues and the lexicon are named. */
  named: boolean;
}

/** The features that decided a classification, strongest first (the model's order). */
export function evidence(classification: Classification): Evidence[] {
  return classification.features.map((f) => ({
    label: f.feature,
    weight: `+${(f.weight ?? 0).toFixed(2)}`,
    named: f.kind === "structure" || f.kind === "lexicon",
  }));
}

/** Which model decided, for a tooltip: `classifier lr-1 (sha256 031dc666…)`. */
export function modelLabel(classification: Classification): string {
  const model = classification.model;
  if (!model) return "keyword lexicon (the model did not load)";
  return `classifier ${model.version} (sha256 ${model.sha256.slice(0, 8)}…)`;
}

/** When a language model decided: `decided by ollama:qwen3; the classifier said General, 42% sure`. */
export function assistNote(classification: Classification): string | null {
  const assist = classification.assist;
  if (!assist) return null;
  return `decided by ${assist.model}${assist.cached ? " (cached)" : ""}; the classifier said ${categoryLabel(
    assist.localCategory,
  )}, ${formatShare(assist.localConfidence)} sure`;
}

/** Signals the classifier found beyond the category, for chips. */
export function signalChips(classification: Classification): string[] {
  const { needs, stack, hints } = classification.signals;
  const chips: string[] = [];
  if (needs.vision) chips.push("needs vision");
  if (needs.tools) chips.push("needs tools");
  if (needs.structuredOutput) chips.push("structured output");
  if (needs.longContext !== null) chips.push(`~${Math.round(needs.longContext / 1000)}k context`);
  for (const word of stack) chips.push(word);
  if (hints.speed) chips.push("quick");
  if (hints.cost) chips.push("cheap");
  if (hints.critical) chips.push("critical");
  if (hints.production) chips.push("production");
  return chips;
}

/** Parses the optional max price field: `null` when empty, `undefined` when invalid. */
export function parseMaxPrice(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const value = Number(trimmed.replace(/^\$/, ""));
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Whether a model id looks like the catalog's `provider/model`. */
export function modelHash(id: string): string {
  return `#/models?model=${encodeURIComponent(id)}`;
}

/** Why models were left out: `12 not scored in coding, 3 outside the budget`, or null. */
export function describeRejections(rejected: Rejections, category: string): string | null {
  const parts: [number, string][] = [
    [rejected.overBudget, "outside the budget"],
    [rejected.notInCategory, `not scored in ${categoryLabel(category).toLowerCase()}`],
    [rejected.noVision, "without image input"],
    [rejected.shortContext, "with too short a context"],
    [rejected.noTools, "without tool calling"],
    [rejected.noStructuredOutput, "without structured output"],
    [rejected.unusable, "without a key or endpoint"],
  ];
  const text = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return text.length === 0 ? null : `Left out: ${text.join(", ")}.`;
}
