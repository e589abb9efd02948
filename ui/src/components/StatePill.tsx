import type { StateWord } from "../ipc";
import { toneClass } from "../states";

/** A state's pill: the engine's label in its tone's colour. */
export function StatePill({ word, id }: { word: StateWord; id?: string }) {
  return (
    <span className={`pill ${toneClass(word.tone)}`} id={id}>
      {word.label}
    </span>
  );
}
