// The Models page's filter state and its translation into the engine's `ModelQuery`. Pure.
import type { Category, ModelQuery, SortKey, Tag, Tier } from "../../ipc";

/** What the filter bar and the table headers hold. Text fields keep what the user typed. */
export interface FilterState {
  search: string;
  /** Filters to models scored in it; also the category the score column and the plot show. */
  category: Category | null;
  tier: Tier | null;
  tags: Tag[];
  providers: string[];
  /** Highest blended $/M as typed; empty = no limit. */
  maxPrice: string;
  /** Least context length in tokens; `null` = any. */
  minContext: number | null;
  sort: SortKey;
  descending: boolean;
}

export const DEFAULT_FILTERS: FilterState = {
  search: "",
  category: null,
  tier: null,
  tags: [],
  providers: [],
  maxPrice: "",
  minContext: null,
  sort: "score",
  descending: true,
};

/** Context presets offered by the "min context" filter. */
export const CONTEXT_PRESETS: readonly number[] = [8_000, 32_000, 128_000, 200_000, 1_000_000];

/**
 * Parses the max-price field: `null` when empty (no limit), a number ≥ 0 when valid, and
 * `"invalid"` for anything else (the filter is then not applied and the field is marked).
 */
export function parseMaxPrice(text: string): number | null | "invalid" {
  const trimmed = text.trim().replace(/^\$/, "");
  if (trimmed === "") {
    return null;
  }
  const value = Number(trimmed);
  return Number.isFinite(value) && value >= 0 ? value : "invalid";
}

/** The query the engine runs for this state (empty fields are left out). */
export function toModelQuery(state: FilterState): ModelQuery {
  const search = state.search.trim();
  const maxPrice = parseMaxPrice(state.maxPrice);
  return {
    search: search === "" ? null : search,
    category: state.category,
    tier: state.tier,
    tags: [...state.tags],
    providers: [...state.providers],
    maxPrice: typeof maxPrice === "number" ? maxPrice : null,
    minContext: state.minContext,
    sort: state.sort,
    descending: state.descending,
    limit: null,
  };
}

/** The direction users expect first: cheapest first for price, highest first otherwise. */
export function naturalDescending(sort: SortKey): boolean {
  return sort !== "price";
}

/** Clicking a sortable header: the same key flips the direction, another starts naturally. */
export function toggleSort(state: FilterState, sort: SortKey): FilterState {
  if (state.sort === sort) {
    return { ...state, descending: !state.descending };
  }
  return { ...state, sort, descending: naturalDescending(sort) };
}

/** The category the score column, efficiency and the plot use: the chosen one, else general. */
export function scoreCategory(state: Pick<FilterState, "category">): Category {
  return state.category ?? "general";
}

/** Whether any filter (not the sort) narrows the list. */
export function isFiltered(state: FilterState): boolean {
  return (
    state.search.trim() !== "" ||
    state.category !== null ||
    state.tier !== null ||
    state.tags.length > 0 ||
    state.providers.length > 0 ||
    typeof parseMaxPrice(state.maxPrice) === "number" ||
    state.minContext !== null
  );
}

/** The state with every filter cleared and the sort kept. */
export function clearFilters(state: FilterState): FilterState {
  return { ...DEFAULT_FILTERS, sort: state.sort, descending: state.descending };
}

/** Adds `item` when absent, removes it when present. */
export function toggleItem<T>(items: readonly T[], item: T): T[] {
  return items.includes(item) ? items.filter((i) => i !== item) : [...items, item];
}
