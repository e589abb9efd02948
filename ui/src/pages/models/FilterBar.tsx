import type { Category, Tag, Tier } from "../../ipc";
import {
  CONTEXT_PRESETS,
  type FilterState,
  isFiltered,
  parseMaxPrice,
  toggleItem,
} from "./filters";
import {
  CATEGORIES,
  CATEGORY_LABEL,
  formatContext,
  TAG_LABEL,
  TAGS,
  TIER_LABEL,
  TIERS,
} from "./format";
import { MultiSelect, type Option } from "./MultiSelect";
import { useDebouncedText } from "./useDebounced";

export interface FilterBarProps {
  filters: FilterState;
  onChange: (next: FilterState) => void;
  onClear: () => void;
  /** Providers of the whole catalog with their model counts, most models first. */
  providers: readonly { id: string; count: number }[];
}

/** Search, category, tier, providers, tags, max price and min context. */
export function FilterBar({ filters, onChange, onClear, providers }: FilterBarProps) {
  const [search, setSearch] = useDebouncedText(filters.search, (text) =>
    onChange({ ...filters, search: text }),
  );
  const [maxPrice, setMaxPrice] = useDebouncedText(filters.maxPrice, (text) =>
    onChange({ ...filters, maxPrice: text }),
  );
  const priceInvalid = parseMaxPrice(maxPrice) === "invalid";

  const providerOptions: Option<string>[] = providers.map((p) => ({
    value: p.id,
    label: p.id,
    hint: String(p.count),
  }));
  const tagOptions: Option<Tag>[] = TAGS.map((t) => ({ value: t, label: TAG_LABEL[t] }));

  return (
    <div className="filterbar">
      <input
        type="search"
        id="models-search"
        className="search"
        placeholder="Search name, id, provider, source names…"
        aria-label="Search models"
        value={search}
        onChange={(e) => setSearch(e.target.value)}
      />
      <select
        id="models-category"
        aria-label="Category"
        value={filters.category ?? ""}
        onChange={(e) =>
          onChange({ ...filters, category: (e.target.value || null) as Category | null })
        }
      >
        <option value="">All categories</option>
        {CATEGORIES.map((c) => (
          <option key={c} value={c}>
            {CATEGORY_LABEL[c]}
          </option>
        ))}
      </select>
      <select
        id="models-tier"
        aria-label="Tier"
        value={filters.tier ?? ""}
        onChange={(e) => onChange({ ...filters, tier: (e.target.value || null) as Tier | null })}
      >
        <option value="">Any tier</option>
        {TIERS.map((t) => (
          <option key={t} value={t}>
            {TIER_LABEL[t]}
          </option>
        ))}
      </select>
      <MultiSelect
        id="models-providers"
        label="Providers"
        options={providerOptions}
        selected={filters.providers}
        searchable
        onToggle={(p) => onChange({ ...filters, providers: toggleItem(filters.providers, p) })}
        onClear={() => onChange({ ...filters, providers: [] })}
      />
      <MultiSelect
        id="models-tags"
        label="Tags"
        options={tagOptions}
        selected={filters.tags}
        onToggle={(t) => onChange({ ...filters, tags: toggleItem(filters.tags, t) })}
        onClear={() => onChange({ ...filters, tags: [] })}
      />
      <label className={`price-field${priceInvalid ? " invalid" : ""}`}>
        <span className="muted small">max $/M</span>
        <input
          id="models-max-price"
          inputMode="decimal"
          placeholder="any"
          aria-label="Highest blended price per million tokens"
          aria-invalid={priceInvalid}
          title={
            priceInvalid
              ? "Enter a price such as 2 or 0.5"
              : "Highest blended price per million tokens"
          }
          value={maxPrice}
          onChange={(e) => setMaxPrice(e.target.value)}
        />
      </label>
      <select
        id="models-min-context"
        aria-label="Least context length"
        value={filters.minContext ?? ""}
        onChange={(e) =>
          onChange({
            ...filters,
            minContext: e.target.value === "" ? null : Number(e.target.value),
          })
        }
      >
        <option value="">Any context</option>
        {CONTEXT_PRESETS.map((c) => (
          <option key={c} value={c}>
            ≥ {formatContext(c)}
          </option>
        ))}
      </select>
      {isFiltered(filters) && (
        <button type="button" className="link" id="models-clear" onClick={onClear}>
          Clear filters
        </button>
      )}
    </div>
  );
}
