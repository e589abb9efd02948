// Picker search: which blocks match what the user typed, best matches first.
import type { BlockKind, RoleBlock, StackGroup } from "../../ipc";

/** Lower is better; `null` = no match. Every word typed must match somewhere. */
export function matchRank(block: RoleBlock, query: string): number | null {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) {
    return 0;
  }
  const title = block.title.toLowerCase();
  const names = [block.id.toLowerCase(), ...block.aliases];
  const description = block.description.toLowerCase();
  let rank = 0;
  for (const word of words) {
    if (title.startsWith(word) || names.some((n) => n === word)) {
      continue;
    }
    if (
      names.some((n) => n.startsWith(word)) ||
      title.split(/\W+/).some((w) => w.startsWith(word))
    ) {
      rank = Math.max(rank, 1);
    } else if (title.includes(word) || names.some((n) => n.includes(word))) {
      rank = Math.max(rank, 2);
    } else if (description.includes(word)) {
      rank = Math.max(rank, 3);
    } else {
      return null;
    }
  }
  return rank;
}

/** Blocks of `kind` matching `query`, best rank first, library order within a rank. */
export function filterBlocks(
  blocks: readonly RoleBlock[],
  kind: BlockKind,
  query: string,
): RoleBlock[] {
  return blocks
    .map((block, index) => ({
      block,
      index,
      rank: block.kind === kind ? matchRank(block, query) : null,
    }))
    .filter(
      (entry): entry is { block: RoleBlock; index: number; rank: number } => entry.rank !== null,
    )
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.block);
}

export const GROUP_TITLE: Record<StackGroup, string> = {
  language: "Languages",
  framework: "Frameworks",
  database: "Databases",
  cloud: "Clouds",
  tool: "Tools",
};

const GROUP_ORDER: readonly (StackGroup | "other")[] = [
  "language",
  "framework",
  "database",
  "cloud",
  "tool",
  "other",
];

export interface BlockGroup {
  key: StackGroup | "other";
  title: string;
  blocks: RoleBlock[];
}

/** Stack blocks grouped (languages, frameworks, …), keeping their order inside a group. */
export function groupStack(blocks: readonly RoleBlock[]): BlockGroup[] {
  return GROUP_ORDER.map((key) => ({
    key,
    title: key === "other" ? "Other" : GROUP_TITLE[key],
    blocks: blocks.filter((b) => (b.group ?? "other") === key),
  })).filter((group) => group.blocks.length > 0);
}

/** Finds a block by kind and id (ids are unique per kind only: `security` is two blocks). */
export function findBlock(
  blocks: readonly RoleBlock[],
  kind: BlockKind,
  id: string,
): RoleBlock | undefined {
  return blocks.find((b) => b.kind === kind && b.id === id);
}
