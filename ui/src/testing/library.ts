// Testing Library for the UI as it ships: the app runs on Preact's compat layer (see
// vite.config.ts), so the tests render with Preact's Testing Library, which wraps every event
// and wait in Preact's `act` (renders and effects are flushed before the next line runs).
// The components are typed against React's API, hence the element type of `render`.
import * as preactLibrary from "@testing-library/preact";
import type { ComponentChild } from "preact";
import type { ReactElement } from "react";

export { cleanup, screen, waitFor, within } from "@testing-library/preact";

/** Microtask turns an async `act` lets pass: enough for a mocked call's chained awaits. */
const SETTLE_TURNS = 20;

/**
 * Preact's `act`, and for an async callback also what React's `act` does after it: the calls
 * the flushed renders and effects started (mocked IPC, resolved in microtasks) settle and what
 * they set is rendered, before the test reads the page. Microtasks only, so fake timers stay
 * in the test's hands.
 */
export function act(callback: () => unknown): Promise<void> {
  let isAsync = false;
  const first = preactLibrary.act(() => {
    const result = callback();
    if (result instanceof Promise) {
      isAsync = true;
      return result.then(() => undefined);
    }
    return undefined;
  });
  if (!isAsync) {
    return first;
  }
  return first.then(async () => {
    for (let round = 0; round < 3; round += 1) {
      await preactLibrary.act(async () => {
        for (let turn = 0; turn < SETTLE_TURNS; turn += 1) {
          await Promise.resolve();
        }
      });
    }
  });
}

const asChild = (ui: ReactElement) => ui as unknown as ComponentChild;

export function render(ui: ReactElement) {
  const result = preactLibrary.render(asChild(ui));
  return { ...result, rerender: (next: ReactElement) => result.rerender(asChild(next)) };
}

export function renderHook<Result, Props>(
  callback: (props: Props) => Result,
  options?: { initialProps?: Props },
) {
  return preactLibrary.renderHook(callback, options);
}

type FireEvent = typeof preactLibrary.fireEvent;
type Init = Parameters<FireEvent["change"]>[1];

/** Dispatches `types` on `element` in order, as one browser action, inside Preact's `act`. */
function dispatch(
  element: Element,
  types: (keyof typeof preactLibrary.createEvent)[],
  init?: Init,
) {
  let result = true;
  for (const type of types) {
    result =
      preactLibrary.fireEvent(element, preactLibrary.createEvent[type](element, init)) && result;
  }
  return result;
}

/**
 * Preact's `fireEvent`, with the events a browser fires for a change of value and for focus.
 * compat listens where React does but under other names: `onChange` is `input` on text fields
 * and `change` on selects and checkboxes; `onFocus`/`onBlur` are `focusin`/`focusout`. The
 * library's own renaming sends `input` even to a select, and builds `focusin` with the wrong
 * type under jsdom.
 */
export const fireEvent: FireEvent = Object.assign(
  ((element, event) => preactLibrary.fireEvent(element, event)) as FireEvent,
  preactLibrary.fireEvent,
  {
    change: (element: Element, init?: Init) => dispatch(element, ["input", "change"], init),
    focus: (element: Element, init?: Init) => dispatch(element, ["focus", "focusIn"], init),
    blur: (element: Element, init?: Init) => dispatch(element, ["blur", "focusOut"], init),
  },
);
