import { describe, expect, it } from "vitest";
import {
  clearFilters,
  DEFAULT_FILTERS,
  isFiltered,
  parseMaxPrice,
  scoreCategory,
  toggleItem,
  toggleSort,
  toModelQuery,
} from "./filters";

describe("toModelQuery", () => {
  it("leaves everything open by default, best score first", () => {
    expect(toModelQuery(DEFAULT_FILTERS)).toEqual({
      search: null,
      category: null,
      tier: null,
      tags: [],
      providers: [],
      maxPrice: null,
      minContext: null,
      sort: "score",
      descending: true,
      limit: null,
    });
  });

  it("carries every filter and trims the search", () => {
    const query = toModelQuery({
      search: "  claude opus ",
      category: "coding",
      tier: "premium",
      tags: ["vision", "tools"],
      providers: ["anthropic"],
      maxPrice: "$12.5",
      minContext: 200_000,
      sort: "price",
      descending: false,
    });
    expect(query).toEqual({
      search: "claude opus",
      category: "coding",
      tier: "premium",
      tags: ["vision", "tools"],
      providers: ["anthropic"],
      maxPrice: 12.5,
      minContext: 200_000,
      sort: "price",
      descending: false,
      limit: null,
    });
  });

  it("ignores an invalid price and a blank search", () => {
    const query = toModelQuery({ ...DEFAULT_FILTERS, search: "   ", maxPrice: "cheap" });
    expect(query.search).toBeNull();
    expect(query.maxPrice).toBeNull();
  });

  it("does not share arrays with the state", () => {
    const state = { ...DEFAULT_FILTERS, tags: ["free" as const] };
    const query = toModelQuery(state);
    query.tags?.push("fast");
    expect(state.tags).toEqual(["free"]);
  });
});

describe("parseMaxPrice", () => {
  it("reads numbers, a leading dollar, zero, and rejects the rest", () => {
    expect(parseMaxPrice("")).toBeNull();
    expect(parseMaxPrice(" 3 ")).toBe(3);
    expect(parseMaxPrice("$0.5")).toBe(0.5);
    expect(parseMaxPrice("0")).toBe(0);
    expect(parseMaxPrice("-1")).toBe("invalid");
    expect(parseMaxPrice("1e999")).toBe("invalid");
    expect(parseMaxPrice("two")).toBe("invalid");
  });
});

describe("toggleSort", () => {
  it("flips the direction on the same key and starts new keys in their natural direction", () => {
    const byPrice = toggleSort(DEFAULT_FILTERS, "price");
    expect([byPrice.sort, byPrice.descending]).toEqual(["price", false]);
    const flipped = toggleSort(byPrice, "price");
    expect([flipped.sort, flipped.descending]).toEqual(["price", true]);
    const bySpeed = toggleSort(flipped, "speed");
    expect([bySpeed.sort, bySpeed.descending]).toEqual(["speed", true]);
    expect(toggleSort(DEFAULT_FILTERS, "score").descending).toBe(false);
  });
});

describe("filter helpers", () => {
  it("isFiltered ignores the sort and invalid prices", () => {
    expect(isFiltered(DEFAULT_FILTERS)).toBe(false);
    expect(isFiltered({ ...DEFAULT_FILTERS, sort: "speed" })).toBe(false);
    expect(isFiltered({ ...DEFAULT_FILTERS, maxPrice: "abc" })).toBe(false);
    expect(isFiltered({ ...DEFAULT_FILTERS, maxPrice: "0" })).toBe(true);
    expect(isFiltered({ ...DEFAULT_FILTERS, minContext: 8000 })).toBe(true);
  });

  it("clearFilters keeps the sort", () => {
    const cleared = clearFilters({
      ...DEFAULT_FILTERS,
      category: "math",
      sort: "price",
      descending: false,
    });
    expect(cleared).toEqual({ ...DEFAULT_FILTERS, sort: "price", descending: false });
  });

  it("scoreCategory falls back to general; toggleItem adds and removes", () => {
    expect(scoreCategory({ category: null })).toBe("general");
    expect(scoreCategory({ category: "math" })).toBe("math");
    expect(toggleItem(["a", "b"], "a")).toEqual(["b"]);
    expect(toggleItem(["a"], "c")).toEqual(["a", "c"]);
  });
});
