import { describe, expect, it } from "vitest";
import { filterBlocks, findBlock, groupStack, matchRank } from "./filter";
import { BLOCKS } from "./fixtures.test-util";

const ids = (blocks: { id: string }[]) => blocks.map((b) => b.id);

describe("picker filtering", () => {
  it("keeps only the picker's kind, in library order, for an empty query", () => {
    expect(ids(filterBlocks(BLOCKS, "persona", ""))).toEqual([
      "backend-engineer",
      "frontend-engineer",
      "sre",
    ]);
    expect(ids(filterBlocks(BLOCKS, "guardrail", "  "))).toHaveLength(3);
  });

  it("finds blocks by alias and ranks title prefixes before description matches", () => {
    expect(ids(filterBlocks(BLOCKS, "stack", "pg"))).toEqual(["postgresql"]);
    expect(ids(filterBlocks(BLOCKS, "stack", "POSTGRES"))).toEqual(["postgresql"]);
    // "engineer" is a later word of two titles and part of the SRE title too.
    expect(ids(filterBlocks(BLOCKS, "persona", "reli"))).toEqual(["sre"]);
    // Title word beats description text: "production" only matches SRE's description.
    expect(ids(filterBlocks(BLOCKS, "persona", "production"))).toEqual(["sre"]);
    const both = filterBlocks(BLOCKS, "persona", "front");
    expect(ids(both)).toEqual(["frontend-engineer"]);
  });

  it("requires every word to match and ranks better matches first", () => {
    expect(filterBlocks(BLOCKS, "persona", "backend nothing")).toEqual([]);
    expect(ids(filterBlocks(BLOCKS, "persona", "engineer backend"))).toEqual(["backend-engineer"]);
    const rust = BLOCKS.find((b) => b.id === "rust");
    const ts = BLOCKS.find((b) => b.id === "typescript");
    if (!rust || !ts) throw new Error("fixtures");
    expect(matchRank(rust, "rust")).toBe(0);
    expect(matchRank(ts, "script")).toBe(2);
    expect(matchRank(ts, "block")).toBe(3);
    expect(matchRank(ts, "python")).toBeNull();
  });

  it("groups stack entries by group in picker order", () => {
    const groups = groupStack(filterBlocks(BLOCKS, "stack", ""));
    expect(groups.map((g) => [g.title, ids(g.blocks)])).toEqual([
      ["Languages", ["rust", "typescript"]],
      ["Frameworks", ["react"]],
      ["Databases", ["postgresql"]],
    ]);
  });

  it("finds blocks by kind and id, since ids repeat across kinds", () => {
    expect(findBlock(BLOCKS, "domain", "security")?.title).toBe("Security products");
    expect(findBlock(BLOCKS, "guardrail", "security")?.title).toBe("Security");
    expect(findBlock(BLOCKS, "format", "security")).toBeUndefined();
  });
});
