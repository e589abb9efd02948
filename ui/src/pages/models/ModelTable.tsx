import { useVirtualizer } from "@tanstack/react-virtual";
import { type KeyboardEvent, memo, useRef } from "react";
import { type Category, COMPARE_MODELS, type ModelSummary, type SortKey } from "../../ipc";
import type { FilterState } from "./filters";
import {
  CATEGORY_LABEL,
  formatContext,
  formatEfficiency,
  formatPrice,
  formatScore,
  formatShare,
  formatSpeed,
  TAG_LABEL,
  TIER_LABEL,
} from "./format";
import { plotPrice } from "./pareto";

const ROW_HEIGHT = 42;
/** Tags shown in a row; the rest are counted (all are in the cell's tooltip). */
const MAX_TAGS = 2;

interface Column {
  id: string;
  label: string;
  sort?: SortKey;
  align?: "end";
  title?: string;
}

function columns(category: Category): Column[] {
  const name = CATEGORY_LABEL[category];
  return [
    { id: "select", label: "" },
    { id: "model", label: "Model" },
    {
      id: "score",
      label: `${name} score`,
      sort: "score",
      title: "0–100, with the share of the category's evidence it rests on",
    },
    {
      id: "efficiency",
      label: "Score/$",
      sort: "efficiency",
      align: "end",
      title: `${name} score per blended $/M`,
    },
    {
      id: "price",
      label: "$/M",
      sort: "price",
      align: "end",
      title: "Blended price per million tokens (3 input : 1 output)",
    },
    { id: "context", label: "Context", sort: "context", align: "end" },
    {
      id: "speed",
      label: "Speed",
      sort: "speed",
      align: "end",
      title: "Median output tokens per second",
    },
    { id: "tier", label: "Tier" },
    { id: "tags", label: "Tags" },
  ];
}

/** A small pie showing a score's coverage. */
export function CoverageMeter({ coverage }: { coverage: number | null }) {
  const share = Math.min(1, Math.max(0, coverage ?? 0));
  return (
    <span
      className="coverage"
      style={{ "--cov": `${share * 360}deg` } as React.CSSProperties}
      title={`coverage ${formatShare(share)}: share of the category's weight that had data`}
      role="img"
      aria-label={`coverage ${formatShare(share)}`}
    />
  );
}

export interface ModelTableProps {
  rows: readonly ModelSummary[];
  category: Category;
  filters: FilterState;
  version: number;
  busy: boolean;
  selected: readonly string[];
  openId: string | null;
  onSort: (sort: SortKey) => void;
  onToggleSelect: (id: string) => void;
  onOpen: (id: string) => void;
  /** Rendered in place of the rows when there are none. */
  empty: React.ReactNode;
}

/**
 * Every model of the query in a virtualized table: only the rows in view are in the DOM.
 * Memoized: the page re-renders for things the table does not show (status, busy flags).
 */
export const ModelTable = memo(function ModelTable(props: ModelTableProps) {
  const {
    rows,
    category,
    filters,
    version,
    busy,
    selected,
    openId,
    onSort,
    onToggleSelect,
    onOpen,
  } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    initialRect: { width: 1000, height: 600 },
    getItemKey: (index) => rows[index]?.id ?? index,
  });
  const cols = columns(category);
  const full = selected.length >= COMPARE_MODELS.max;

  // The name button gives keyboard users Enter; the row click is the mouse's larger target.
  const onRowKey = (event: KeyboardEvent<HTMLTableRowElement>, id: string) => {
    if (event.key === "Enter") {
      event.preventDefault();
      onOpen(id);
    }
  };

  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);

  return (
    <div
      className={`models-table${busy ? " busy" : ""}`}
      id="models-table"
      data-row-count={rows.length}
      data-version={version}
      data-category={category}
      data-first-id={rows[0]?.id ?? ""}
    >
      <div className="mt-scroll" ref={scroller}>
        <table>
          <colgroup>
            {cols.map((col) => (
              <col key={col.id} className={`c-${col.id}`} />
            ))}
          </colgroup>
          <thead>
            <tr>
              {cols.map((col) => {
                const active = col.sort !== undefined && filters.sort === col.sort;
                const ariaSort = active
                  ? filters.descending
                    ? "descending"
                    : "ascending"
                  : undefined;
                return (
                  <th
                    key={col.id}
                    scope="col"
                    aria-sort={ariaSort}
                    className={`c-${col.id}${col.align === "end" ? " end" : ""}`}
                    title={col.title}
                  >
                    {col.sort ? (
                      <button
                        type="button"
                        className={`sort${active ? " active" : ""}`}
                        data-sort={col.sort}
                        onClick={() => col.sort && onSort(col.sort)}
                      >
                        {col.label}
                        <span className="arrow" aria-hidden>
                          {active ? (filters.descending ? "▼" : "▲") : "↕"}
                        </span>
                      </button>
                    ) : (
                      col.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && <tr className="spacer" style={{ height: padTop }} />}
            {items.map((item) => {
              const model = rows[item.index];
              if (!model) {
                return null;
              }
              const brief = model.categories[category];
              const checked = selected.includes(model.id);
              const price = plotPrice(model);
              return (
                <tr
                  key={item.key}
                  className={`models-row${openId === model.id ? " open" : ""}${checked ? " checked" : ""}`}
                  style={{ height: ROW_HEIGHT }}
                  data-model-id={model.id}
                  data-index={item.index}
                  data-plotted={brief?.score != null && price !== null ? "true" : "false"}
                  onClick={() => onOpen(model.id)}
                  onKeyDown={(e) => onRowKey(e, model.id)}
                >
                  <td className="c-select">
                    <input
                      type="checkbox"
                      aria-label={`Compare ${model.name}`}
                      checked={checked}
                      disabled={!checked && full}
                      title={
                        !checked && full
                          ? `Compare takes at most ${COMPARE_MODELS.max} models`
                          : "Select for compare"
                      }
                      onClick={(e) => e.stopPropagation()}
                      onChange={() => onToggleSelect(model.id)}
                    />
                  </td>
                  <td className="c-model">
                    <button type="button" className="model-open" title={`Open ${model.name}`}>
                      <span className="model-name">{model.name}</span>
                      <span className="model-id mono">{model.id}</span>
                    </button>
                  </td>
                  <td className="c-score">
                    {brief?.score != null ? (
                      <span className="score-cell">
                        <span className="score-bar">
                          <span style={{ width: `${Math.max(0, Math.min(100, brief.score))}%` }} />
                        </span>
                        <span className="score-value">{formatScore(brief.score)}</span>
                        <CoverageMeter coverage={brief.coverage} />
                      </span>
                    ) : (
                      <span className="muted small" title="No benchmark evidence in this category">
                        no score
                      </span>
                    )}
                  </td>
                  <td className="c-efficiency end">
                    {formatEfficiency(model.efficiency[category])}
                  </td>
                  <td
                    className="c-price end"
                    title={`input ${formatPrice(model.pricing.promptPerM)} · output ${formatPrice(model.pricing.completionPerM)} per M`}
                  >
                    {formatPrice(price)}
                  </td>
                  <td className="c-context end">{formatContext(model.contextLength)}</td>
                  <td className="c-speed end">{formatSpeed(model.outputSpeed)}</td>
                  <td className="c-tier">
                    <span className={`tier tier-${model.tier}`}>{TIER_LABEL[model.tier]}</span>
                  </td>
                  <td className="c-tags" title={model.tags.map((t) => TAG_LABEL[t]).join(", ")}>
                    {model.tags.slice(0, MAX_TAGS).map((tag) => (
                      <span key={tag} className={`tag tag-${tag}`}>
                        {TAG_LABEL[tag]}
                      </span>
                    ))}
                    {model.tags.length > MAX_TAGS && (
                      <span className="tag more">+{model.tags.length - MAX_TAGS}</span>
                    )}
                  </td>
                </tr>
              );
            })}
            {padBottom > 0 && <tr className="spacer" style={{ height: padBottom }} />}
          </tbody>
        </table>
        {rows.length === 0 && props.empty}
      </div>
    </div>
  );
});
