// The sidebar's pages, in order, and hash routing (`#/settings`).

export type PageId = "models" | "route" | "roles" | "runs" | "review" | "keys" | "settings";

export interface PageEntry {
  id: PageId;
  title: string;
  /** One line shown under the title. */
  summary: string;
}

export const PAGES: readonly PageEntry[] = [
  { id: "models", title: "Models", summary: "Benchmark-backed catalog, quality vs price" },
  { id: "route", title: "Route", summary: "Pick the right model for a task and budget" },
  { id: "roles", title: "Roles", summary: "Compose role prompts from reusable blocks" },
  { id: "runs", title: "Runs", summary: "Single, collective, cascade and swarm runs" },
  { id: "review", title: "Review", summary: "Check worker diffs before anything merges" },
  { id: "keys", title: "Keys", summary: "Provider keys in the OS keychain" },
  { id: "settings", title: "Settings", summary: "Data, database, doctor report" },
];

const DEFAULT_PAGE: PageId = "models";

/** The page named by a location hash such as `#/keys`; unknown hashes fall back to Models. */
export function pageFromHash(hash: string): PageId {
  const id = hash.replace(/^#\/?/, "").split(/[/?]/)[0] ?? "";
  const page = PAGES.find((p) => p.id === id);
  return page ? page.id : DEFAULT_PAGE;
}

export function hashFor(page: PageId): string {
  return `#/${page}`;
}
