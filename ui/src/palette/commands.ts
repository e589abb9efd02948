// Decisions the palette and the keyboard ask of the page in view. The Review page's decision
// panel listens; nothing happens when no attempt awaiting review is shown.

export type Decision = "approve" | "reject" | "changes";

const EVENT = "switchyard:decide";

/** Asks the attempt in view for `decision` (approve asks for confirmation first). */
export function requestDecision(decision: Decision): void {
  window.dispatchEvent(new CustomEvent<Decision>(EVENT, { detail: decision }));
}

/** Calls `handler` on each request; returns the unsubscribe function. */
export function onDecisionRequest(handler: (decision: Decision) => void): () => void {
  const listener = (event: Event) => handler((event as CustomEvent<Decision>).detail);
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}
