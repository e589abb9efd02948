import { describe, expect, it } from "vitest";
import { hashFor, PAGES, pageFromHash } from "./nav";

describe("hash routing", () => {
  it("lists the seven pages in sidebar order", () => {
    expect(PAGES.map((p) => p.id)).toEqual([
      "models",
      "route",
      "roles",
      "runs",
      "review",
      "keys",
      "settings",
    ]);
  });

  it("round-trips every page through its hash", () => {
    for (const page of PAGES) {
      expect(pageFromHash(hashFor(page.id))).toBe(page.id);
    }
  });

  it("falls back to models on unknown or empty hashes", () => {
    expect(pageFromHash("")).toBe("models");
    expect(pageFromHash("#/nope")).toBe("models");
    expect(pageFromHash("#/settings/extra?x=1")).toBe("settings");
  });
});
