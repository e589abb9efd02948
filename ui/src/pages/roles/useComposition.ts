// The live preview's data: compose when the selection or task settles, newest answer wins.
import { useEffect, useMemo, useState } from "react";
import { type ComposedRole, describeError, rolesIpc } from "../../ipc";
import { createSequencer, useDebouncedValue } from "./debounce";
import { composeRequest, type Selection } from "./selection";

/** How long typing must pause before the preview recomposes. */
export const COMPOSE_DEBOUNCE_MS = 200;

export type Composition =
  | { state: "empty" }
  | { state: "loading"; role: ComposedRole | null }
  | { state: "ready"; role: ComposedRole }
  | { state: "error"; message: string };

/**
 * Composes `selection` + `task` through the engine after a pause. `version` forces a new
 * compose when block content changed (a custom block was edited) with the same selection.
 */
export function useComposition(selection: Selection, task: string, version: number): Composition {
  const input = useMemo(() => ({ selection, task, version }), [selection, task, version]);
  const settled = useDebouncedValue(input, COMPOSE_DEBOUNCE_MS);
  const sequencer = useMemo(createSequencer, []);
  const [result, setResult] = useState<Composition>({ state: "empty" });

  useEffect(() => {
    if (settled.task.trim() === "") {
      sequencer.next();
      setResult({ state: "empty" });
      return;
    }
    const ticket = sequencer.next();
    setResult((current) => ({
      state: "loading",
      role: current.state === "ready" || current.state === "loading" ? current.role : null,
    }));
    rolesIpc
      .compose(composeRequest(settled.selection, settled.task))
      .then((role) => {
        if (sequencer.isLatest(ticket)) {
          setResult({ state: "ready", role });
        }
      })
      .catch((error: unknown) => {
        if (sequencer.isLatest(ticket)) {
          setResult({ state: "error", message: describeError(error).message });
        }
      });
  }, [settled, sequencer]);

  return result;
}
