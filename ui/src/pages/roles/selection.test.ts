import { describe, expect, it } from "vitest";
import type { RoleWarning } from "../../ipc";
import {
  applySuggestion,
  blockCount,
  composeRequest,
  deselect,
  EMPTY_SELECTION,
  move,
  presetFromSelection,
  type Selection,
  select,
  selectedIds,
  selectionFromPreset,
} from "./selection";

describe("selection", () => {
  it("replaces single slots and appends to lists once, in order", () => {
    let s = select(EMPTY_SELECTION, "persona", "sre");
    s = select(s, "persona", "backend-engineer");
    s = select(s, "stack", "rust");
    s = select(s, "stack", "postgresql");
    s = select(s, "stack", "rust");
    s = select(s, "guardrail", "security");
    expect(s.persona).toBe("backend-engineer");
    expect(s.stack).toEqual(["rust", "postgresql"]);
    expect(selectedIds(s, "guardrail")).toEqual(["security"]);
    expect(selectedIds(s, "domain")).toEqual([]);
    expect(blockCount(s)).toBe(4);
    expect(EMPTY_SELECTION.stack).toEqual([]);
  });

  it("removes without disturbing the rest of the order", () => {
    let s = EMPTY_SELECTION;
    for (const id of ["rust", "react", "postgresql"]) s = select(s, "stack", id);
    s = deselect(s, "stack", "react");
    expect(s.stack).toEqual(["rust", "postgresql"]);
    s = select(s, "format", "patch-only");
    expect(deselect(s, "format", "other").format).toBe("patch-only");
    expect(deselect(s, "format", "patch-only").format).toBeNull();
  });

  it("moves list entries and clamps at the ends", () => {
    let s = EMPTY_SELECTION;
    for (const id of ["a", "b", "c"]) s = select(s, "stack", id);
    expect(move(s, "stack", "c", -1).stack).toEqual(["a", "c", "b"]);
    expect(move(s, "stack", "a", -1)).toBe(s);
    expect(move(s, "stack", "a", 5).stack).toEqual(["b", "c", "a"]);
    expect(move(s, "stack", "missing", 1)).toBe(s);
  });

  it("applies a warning's suggestion in place, or drops the id when the suggestion is there", () => {
    const warning = (kind: RoleWarning["kind"], id: string, suggestion: string | null) => ({
      kind,
      id,
      suggestion,
      message: "",
    });
    let s: Selection = {
      ...EMPTY_SELECTION,
      persona: "backend-enginer",
      stack: ["rustt", "react"],
    };
    s = applySuggestion(s, warning("persona", "backend-enginer", "backend-engineer"));
    s = applySuggestion(s, warning("stack", "rustt", "rust"));
    expect(s.persona).toBe("backend-engineer");
    expect(s.stack).toEqual(["rust", "react"]);
    const dup = { ...EMPTY_SELECTION, guardrails: ["secrity", "security"] };
    expect(applySuggestion(dup, warning("guardrail", "secrity", "security")).guardrails).toEqual([
      "security",
    ]);
    expect(applySuggestion(s, warning("stack", "zzz", null))).toBe(s);
  });

  it("round-trips through a preset and builds the compose request", () => {
    const s = { ...EMPTY_SELECTION, persona: "sre", stack: ["go"], guardrails: ["security"] };
    const preset = presetFromSelection("  On call ", s);
    expect(preset.name).toBe("On call");
    const back = selectionFromPreset(preset);
    expect(back).toEqual(s);
    expect(back.stack).not.toBe(s.stack);
    expect(composeRequest(s, "Fix paging")).toEqual({
      task: "Fix paging",
      persona: "sre",
      stack: ["go"],
      domain: null,
      format: null,
      guardrails: ["security"],
      preset: null,
    });
  });
});
