// The composer's selection: which block ids fill each slot. Pure functions, so that the
// rules the pickers follow (one persona, ordered stack, no duplicates) are tested alone.
import type { BlockKind, ComposeRequest, RolePreset, RoleWarning } from "../../ipc";

/** Kinds that take any number of blocks, in the order chosen. */
export type MultiKind = "stack" | "guardrail";
/** Kinds that take at most one block. */
export type SingleKind = "persona" | "domain" | "format";

export interface Selection {
  persona: string | null;
  stack: string[];
  domain: string | null;
  format: string | null;
  guardrails: string[];
}

export const EMPTY_SELECTION: Selection = {
  persona: null,
  stack: [],
  domain: null,
  format: null,
  guardrails: [],
};

export function isMulti(kind: BlockKind): kind is MultiKind {
  return kind === "stack" || kind === "guardrail";
}

function listOf(selection: Selection, kind: MultiKind): string[] {
  return kind === "stack" ? selection.stack : selection.guardrails;
}

function withList(selection: Selection, kind: MultiKind, list: string[]): Selection {
  return kind === "stack" ? { ...selection, stack: list } : { ...selection, guardrails: list };
}

/** The ids chosen for `kind`, in order (zero or one for single kinds). */
export function selectedIds(selection: Selection, kind: BlockKind): string[] {
  if (isMulti(kind)) {
    return listOf(selection, kind);
  }
  const id = selection[kind];
  return id === null ? [] : [id];
}

/** Chooses `id` for `kind`: replaces the single slot, or appends to a list (once). */
export function select(selection: Selection, kind: BlockKind, id: string): Selection {
  if (!isMulti(kind)) {
    return { ...selection, [kind]: id };
  }
  const list = listOf(selection, kind);
  return list.includes(id) ? selection : withList(selection, kind, [...list, id]);
}

/** Removes `id` from `kind`; other entries keep their order. */
export function deselect(selection: Selection, kind: BlockKind, id: string): Selection {
  if (!isMulti(kind)) {
    return selection[kind] === id ? { ...selection, [kind]: null } : selection;
  }
  return withList(
    selection,
    kind,
    listOf(selection, kind).filter((entry) => entry !== id),
  );
}

/** Moves `id` by `delta` places within a list kind, clamped to the ends. */
export function move(selection: Selection, kind: MultiKind, id: string, delta: number): Selection {
  const list = [...listOf(selection, kind)];
  const from = list.indexOf(id);
  if (from < 0) {
    return selection;
  }
  const to = Math.min(list.length - 1, Math.max(0, from + delta));
  if (to === from) {
    return selection;
  }
  list.splice(from, 1);
  list.splice(to, 0, id);
  return withList(selection, kind, list);
}

/** Replaces an unknown id named by a compose warning with the suggested one. */
export function applySuggestion(selection: Selection, warning: RoleWarning): Selection {
  const suggestion = warning.suggestion;
  if (!suggestion) {
    return selection;
  }
  if (!isMulti(warning.kind)) {
    return { ...selection, [warning.kind]: suggestion };
  }
  const list = listOf(selection, warning.kind);
  const replaced = list.includes(suggestion)
    ? list.filter((id) => id !== warning.id)
    : list.map((id) => (id === warning.id ? suggestion : id));
  return withList(selection, warning.kind, replaced);
}

/** How many blocks are chosen across every slot. */
export function blockCount(selection: Selection): number {
  return (
    (selection.persona ? 1 : 0) +
    selection.stack.length +
    (selection.domain ? 1 : 0) +
    (selection.format ? 1 : 0) +
    selection.guardrails.length
  );
}

export function selectionFromPreset(preset: RolePreset): Selection {
  return {
    persona: preset.persona ?? null,
    stack: [...(preset.stack ?? [])],
    domain: preset.domain ?? null,
    format: preset.format ?? null,
    guardrails: [...(preset.guardrails ?? [])],
  };
}

export function presetFromSelection(name: string, selection: Selection): RolePreset {
  return { name: name.trim(), ...selection };
}

/** The compose request for the current selection and task (no preset: the pickers hold it). */
export function composeRequest(selection: Selection, task: string): ComposeRequest {
  return { task, ...selection, preset: null };
}
