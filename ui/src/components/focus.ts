/**
 * A ref that focuses its element once, when it mounts: what React's `autoFocus` does. Preact
 * only sets the `autofocus` attribute, which a browser honours while the page loads, not for an
 * element a later render adds.
 */
export const focusOnMount = (element: HTMLElement | null) => {
  element?.focus();
};
