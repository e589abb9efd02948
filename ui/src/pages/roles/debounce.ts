// Debouncing the live preview: compose once typing pauses, and only show the newest answer.
import { useEffect, useState } from "react";

/** `value`, updated only after it has stayed the same for `delayMs`. */
export function useDebouncedValue<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/**
 * Numbers requests so that a slow answer to an old request never overwrites the answer to a
 * newer one: take a ticket before the call, and apply the result only if it is still latest.
 */
export function createSequencer() {
  let latest = 0;
  return {
    next: () => {
      latest += 1;
      return latest;
    },
    isLatest: (ticket: number) => ticket === latest,
  };
}
