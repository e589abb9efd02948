// Words the Roles page shows for each kind of block.
import type { BlockKind } from "../../ipc";

export interface KindLabel {
  /** Picker and section title. */
  title: string;
  /** One block of the kind, in sentences. */
  noun: string;
  /** How many the slot takes. */
  hint: string;
}

export const KIND_LABEL: Record<BlockKind, KindLabel> = {
  persona: { title: "Persona", noun: "persona", hint: "one" },
  stack: { title: "Stack", noun: "stack entry", hint: "any number, in order" },
  domain: { title: "Domain", noun: "domain", hint: "one" },
  format: { title: "Output format", noun: "format", hint: "one" },
  guardrail: { title: "Guardrails", noun: "guardrail", hint: "any number" },
};

/** Kinds in the order the composed prompt uses. */
export const KINDS: readonly BlockKind[] = ["persona", "stack", "domain", "format", "guardrail"];

/** `1 block`, `3 blocks`. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** `stack entry` → `Stack entry`. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
