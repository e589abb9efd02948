import { type KeyboardEvent, useId, useMemo, useRef, useState } from "react";
import type { BlockKind, RoleBlock } from "../../ipc";
import { filterBlocks, findBlock, groupStack } from "./filter";
import { KIND_LABEL } from "./labels";

interface BlockPickerProps {
  kind: BlockKind;
  /** Every block of the library (the picker keeps those of its kind). */
  blocks: readonly RoleBlock[];
  /** Chosen ids, in order. */
  selected: readonly string[];
  onSelect: (id: string) => void;
  onRemove: (id: string) => void;
  /** Reorders a chosen id (list kinds only). */
  onMove?: (id: string, delta: number) => void;
}

/**
 * A searchable combobox for one slot, with the chosen blocks as chips above it. Single slots
 * replace their chip; list slots append and keep the order (chips can be moved and removed).
 */
export function BlockPicker({
  kind,
  blocks,
  selected,
  onSelect,
  onRemove,
  onMove,
}: BlockPickerProps) {
  const label = KIND_LABEL[kind];
  const multi = onMove !== undefined;
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const listId = useId();
  const comboRef = useRef<HTMLDivElement>(null);
  const [placement, setPlacement] = useState<{ up: boolean; maxHeight: number }>({
    up: false,
    maxHeight: 300,
  });

  // Open below the input, or above it when the page has more room there (pickers near the
  // bottom of the window would otherwise open off-screen).
  const openList = () => {
    const combo = comboRef.current;
    if (combo) {
      const rect = combo.getBoundingClientRect();
      const bottom = combo.closest("main")?.getBoundingClientRect().bottom ?? window.innerHeight;
      const below = bottom - rect.bottom;
      const up = below < 240 && rect.top > below;
      const room = (up ? rect.top : below) - 12;
      setPlacement({ up, maxHeight: Math.max(160, Math.min(300, room)) });
    }
    setOpen(true);
  };

  const options = useMemo(() => {
    const matches = filterBlocks(blocks, kind, query);
    return multi ? matches.filter((b) => !selected.includes(b.id)) : matches;
  }, [blocks, kind, query, multi, selected]);
  // Grouped headings help browse a long stack list; a search shows one ranked list instead.
  const groups = useMemo(
    () =>
      kind === "stack" && query.trim() === ""
        ? groupStack(options)
        : [{ key: "all", title: "", blocks: options }],
    [kind, query, options],
  );
  const ordered = groups.flatMap((g) => g.blocks);
  const activeBlock = ordered[Math.min(active, ordered.length - 1)];

  const choose = (block: RoleBlock) => {
    onSelect(block.id);
    setQuery("");
    setActive(0);
    if (!multi) {
      setOpen(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      openList();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((i) => Math.max(0, Math.min(ordered.length - 1, i + step)));
    } else if (event.key === "Enter" && open && activeBlock) {
      event.preventDefault();
      choose(activeBlock);
    } else if (event.key === "Escape") {
      setOpen(false);
    } else if (event.key === "Backspace" && query === "" && selected.length > 0) {
      const last = selected[selected.length - 1];
      if (last !== undefined) {
        onRemove(last);
      }
    }
  };

  return (
    <div className="picker" data-picker={kind}>
      <div className="picker-head">
        <span className="picker-title">{label.title}</span>
        <span className="muted small">{label.hint}</span>
      </div>
      {selected.length > 0 && (
        <ul className="chip-row" aria-label={`Chosen ${label.title.toLowerCase()}`}>
          {selected.map((id, index) => {
            const block = findBlock(blocks, kind, id);
            return (
              <li
                key={id}
                className={`chip${block ? "" : " unknown"}${block?.source === "custom" ? " custom" : ""}`}
                data-block-id={id}
                title={block ? block.description : `Unknown ${label.noun}: ${id}`}
              >
                {multi && <span className="chip-index">{index + 1}</span>}
                <span className="chip-label">{block?.title ?? id}</span>
                {multi && index > 0 && (
                  <button
                    type="button"
                    className="chip-btn"
                    aria-label={`Move ${block?.title ?? id} earlier`}
                    onClick={() => onMove?.(id, -1)}
                  >
                    ‹
                  </button>
                )}
                {multi && index < selected.length - 1 && (
                  <button
                    type="button"
                    className="chip-btn"
                    aria-label={`Move ${block?.title ?? id} later`}
                    onClick={() => onMove?.(id, 1)}
                  >
                    ›
                  </button>
                )}
                <button
                  type="button"
                  className="chip-btn remove"
                  aria-label={`Remove ${block?.title ?? id}`}
                  data-action="remove"
                  onClick={() => onRemove(id)}
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div className="combo" ref={comboRef}>
        <input
          className="picker-search"
          type="search"
          role="combobox"
          aria-expanded={open}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-label={`Search ${label.title.toLowerCase()}`}
          placeholder={
            multi
              ? `Add ${label.noun === "stack entry" ? "a stack entry" : `a ${label.noun}`}…`
              : `Choose a ${label.noun}…`
          }
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
            if (!open) openList();
          }}
          onFocus={openList}
          onBlur={() => setOpen(false)}
          onKeyDown={onKeyDown}
        />
        {open && (
          <div
            className={`combo-list${placement.up ? " up" : ""}`}
            style={{ maxHeight: placement.maxHeight }}
            id={listId}
            role="listbox"
            aria-label={label.title}
          >
            {ordered.length === 0 ? (
              <p className="combo-empty muted small">
                {query ? `No ${label.noun} matches “${query}”.` : `Every ${label.noun} is chosen.`}
              </p>
            ) : (
              groups.map((group) => (
                <div key={group.key} className="combo-group">
                  {group.title && <p className="combo-heading">{group.title}</p>}
                  {group.blocks.map((block) => {
                    const isSelected = selected.includes(block.id);
                    return (
                      <div
                        key={block.id}
                        role="option"
                        tabIndex={-1}
                        aria-selected={isSelected}
                        className={`picker-option${block === activeBlock ? " active" : ""}`}
                        data-block-id={block.id}
                        // Keep focus in the input so the list stays open while clicking.
                        onMouseDown={(e) => e.preventDefault()}
                        onClick={() => choose(block)}
                        onKeyDown={() => {}}
                      >
                        <span className="option-title">
                          {block.title}
                          {block.source === "custom" && <span className="badge">custom</span>}
                          {isSelected && <span className="badge on">chosen</span>}
                        </span>
                        <span className="option-desc">{block.description}</span>
                      </div>
                    );
                  })}
                </div>
              ))
            )}
          </div>
        )}
      </div>
    </div>
  );
}
