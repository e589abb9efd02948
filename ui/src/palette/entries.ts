// The palette's entries: pages and actions (the UI's own), and what Rust lists — catalog
// models, runs, attempts and the MCP snippets. Pure, so it is tested alone.
import type { AgentConfig, PaletteEntry } from "../ipc";
import { hashFor, PAGES } from "../nav";
import { modelHash } from "../pages/models/route";
import { reviewHash, reviewRoute } from "../pages/review/route";
import { runsHash } from "../pages/runs/route";
import type { Decision } from "./commands";

export type PaletteGroup = "Actions" | "Pages" | "Attempts" | "Runs" | "Models";

/** What choosing an entry does. */
export type PaletteEffect =
  | { kind: "go"; hash: string }
  | { kind: "decide"; decision: Decision }
  | { kind: "refreshCatalog" }
  | { kind: "copy"; text: string; what: string };

export interface PaletteItem {
  /** Unique among the entries (cmdk's value). */
  key: string;
  group: PaletteGroup;
  label: string;
  detail: string;
  /** More words it is found by (ids, kinds). */
  keywords: string[];
  effect: PaletteEffect;
}

export function paletteItems(
  hash: string,
  entries: readonly PaletteEntry[],
  snippets: readonly AgentConfig[],
): PaletteItem[] {
  const items: PaletteItem[] = [];
  const route = reviewRoute(hash);
  if (hash.startsWith("#/review/") && route.view === "attempt") {
    const id = route.id;
    const decide = (decision: Decision, label: string): PaletteItem => ({
      key: `decide:${decision}`,
      group: "Actions",
      label,
      detail: `attempt ${id}`,
      keywords: [decision, id],
      effect: { kind: "decide", decision },
    });
    items.push(
      decide("approve", "Approve the attempt in view…"),
      decide("reject", "Reject the attempt in view…"),
      decide("changes", "Request changes to the attempt in view…"),
    );
  }
  items.push(
    {
      key: "action:new-task",
      group: "Actions",
      label: "New task",
      detail: "an attempt by one worker, or compare several",
      keywords: ["attempt", "review", "worker"],
      effect: { kind: "go", hash: reviewHash({ view: "new" }) },
    },
    {
      key: "action:new-run",
      group: "Actions",
      label: "New run",
      detail: "single, collective, cascade, plan or swarm",
      keywords: ["launch", "cascade", "swarm"],
      effect: { kind: "go", hash: runsHash({ view: "new" }) },
    },
    {
      key: "action:refresh-catalog",
      group: "Actions",
      label: "Refresh the catalog",
      detail: "fetch the benchmark sources again",
      keywords: ["models", "update", "benchmarks"],
      effect: { kind: "refreshCatalog" },
    },
  );
  for (const config of snippets) {
    items.push({
      key: `action:snippet:${config.client}`,
      group: "Actions",
      label: `Copy the MCP snippet for ${config.title}`,
      detail: config.target,
      keywords: ["mcp", "connect", "agent", config.client],
      effect: { kind: "copy", text: config.snippet, what: `${config.title}'s MCP snippet` },
    });
  }
  for (const page of PAGES) {
    items.push({
      key: `page:${page.id}`,
      group: "Pages",
      label: page.title,
      detail: page.summary,
      keywords: ["page", page.id],
      effect: { kind: "go", hash: hashFor(page.id) },
    });
  }
  for (const entry of entries) {
    const [group, hash]: [PaletteGroup, string] =
      entry.kind === "attempt"
        ? ["Attempts", reviewHash({ view: "attempt", id: entry.id })]
        : entry.kind === "run"
          ? ["Runs", runsHash({ view: "run", id: entry.id })]
          : ["Models", modelHash(entry.id)];
    items.push({
      key: `${entry.kind}:${entry.id}`,
      group,
      label: entry.title || entry.id,
      detail: entry.detail,
      keywords: [entry.id, entry.kind],
      effect: { kind: "go", hash },
    });
  }
  return items;
}
