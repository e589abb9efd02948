// A state's words and pill, read from the engine's table in the generated bindings
// (`STATE_WORDS`): the UI keeps no list of states, labels or live sets of its own.
import type { AttemptState, NodeState, RunState, StateWord, Tone } from "./ipc";
import { STATE_WORDS } from "./ipc";

export function attemptWord(state: AttemptState): StateWord {
  return STATE_WORDS.attempt[state];
}

export function runWord(state: RunState): StateWord {
  return STATE_WORDS.run[state];
}

export function nodeWord(state: NodeState): StateWord {
  return STATE_WORDS.node[state];
}

/** Every run state, in lifecycle order. */
export const RUN_STATES = (Object.keys(STATE_WORDS.run) as RunState[]).sort(
  (a, b) => STATE_WORDS.run[a].rank - STATE_WORDS.run[b].rank,
);

/** The pill class of a tone: waiting states have no colour of their own. */
export function toneClass(tone: Tone): "ok" | "warn" | "fail" | "live" | "" {
  return tone === "idle" ? "" : tone;
}
