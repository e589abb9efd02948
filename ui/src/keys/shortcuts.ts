// Every keyboard shortcut, in one list: the `?` overlay and Settings show it, and the
// handlers below bind from it, so what is listed is what works.
import type { PageId } from "../nav";

export type ShortcutScope = "Anywhere" | "Review";

export interface Shortcut {
  /** tinykeys' binding (`$mod+KeyK`, `g m`, `Shift+?`). */
  binding: string;
  /** The keys as shown, one chip each. */
  keys: readonly string[];
  action: string;
  scope: ShortcutScope;
}

/** How long after `g` the next key belongs to the `g` sequence (tinykeys' own timeout). */
export const SEQUENCE_MS = 1000;

let prefixAt = Number.NEGATIVE_INFINITY;

/** Notes that `g` was pressed: the next key, within [`SEQUENCE_MS`], jumps to a page. */
export function notePrefix(now = performance.now()): void {
  prefixAt = now;
}

/**
 * A single-key handler that stays quiet for the key that completes a `g` sequence: on the
 * Review page `g r` opens Route and must not also reject.
 */
export function single<E extends KeyboardEvent>(handler: (event: E) => void): (event: E) => void {
  return (event) => {
    if (performance.now() - prefixAt < SEQUENCE_MS) {
      prefixAt = Number.NEGATIVE_INFINITY;
      return;
    }
    handler(event);
  };
}

/** `g` then a letter opens a page. */
export const PAGE_KEYS: Readonly<Record<PageId, string>> = {
  models: "m",
  route: "r",
  roles: "o",
  runs: "u",
  review: "v",
  keys: "k",
  settings: "s",
};

/** What the Review page does from the keyboard (the attempt in view). */
export type ReviewKey = "nextFile" | "previousFile" | "nextHunk" | "previousHunk" | "comment";

export const REVIEW_KEYS: Readonly<Record<ReviewKey, string>> = {
  nextFile: "j",
  previousFile: "k",
  nextHunk: "n",
  previousHunk: "p",
  comment: "c",
};

export const DECISION_KEYS = { approve: "a", reject: "r", changes: "x" } as const;

const PAGE_TITLES: Readonly<Record<PageId, string>> = {
  models: "Models",
  route: "Route",
  roles: "Roles",
  runs: "Runs",
  review: "Review",
  keys: "Keys",
  settings: "Settings",
};

export const SHORTCUTS: readonly Shortcut[] = [
  {
    binding: "$mod+KeyK",
    keys: ["Ctrl", "K"],
    action: "Open the command palette",
    scope: "Anywhere",
  },
  { binding: "Shift+?", keys: ["?"], action: "Show these shortcuts", scope: "Anywhere" },
  {
    binding: "Escape",
    keys: ["Esc"],
    action: "Close a drawer, dialog or the palette",
    scope: "Anywhere",
  },
  ...(Object.entries(PAGE_KEYS) as [PageId, string][]).map(([page, key]) => ({
    binding: `g ${key}`,
    keys: ["g", key],
    action: `Go to ${PAGE_TITLES[page]}`,
    scope: "Anywhere" as const,
  })),
  { binding: REVIEW_KEYS.nextFile, keys: ["j"], action: "Next file", scope: "Review" },
  { binding: REVIEW_KEYS.previousFile, keys: ["k"], action: "Previous file", scope: "Review" },
  {
    binding: REVIEW_KEYS.nextHunk,
    keys: ["n"],
    action: "Next hunk (focuses its first line)",
    scope: "Review",
  },
  { binding: REVIEW_KEYS.previousHunk, keys: ["p"], action: "Previous hunk", scope: "Review" },
  {
    binding: REVIEW_KEYS.comment,
    keys: ["c"],
    action: "Comment on the focused line",
    scope: "Review",
  },
  {
    binding: DECISION_KEYS.approve,
    keys: ["a"],
    action: "Approve (asks first, naming the target branch)",
    scope: "Review",
  },
  { binding: DECISION_KEYS.reject, keys: ["r"], action: "Reject", scope: "Review" },
  { binding: DECISION_KEYS.changes, keys: ["x"], action: "Request changes", scope: "Review" },
];
