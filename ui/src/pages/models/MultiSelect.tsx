import { useEffect, useId, useRef, useState } from "react";

export interface Option<T extends string> {
  value: T;
  label: string;
  /** Shown muted after the label (a count). */
  hint?: string;
}

export interface MultiSelectProps<T extends string> {
  id: string;
  label: string;
  options: readonly Option<T>[];
  selected: readonly T[];
  onToggle: (value: T) => void;
  onClear: () => void;
  /** Show a filter box above the options (long lists such as providers). */
  searchable?: boolean;
}

/** A button that opens a checkbox list; closes on Escape or a click outside. */
export function MultiSelect<T extends string>(props: MultiSelectProps<T>) {
  const { id, label, options, selected, onToggle, onClear, searchable } = props;
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState("");
  const root = useRef<HTMLDivElement>(null);
  const listId = useId();

  useEffect(() => {
    if (!open) {
      return;
    }
    const onDown = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) {
        setOpen(false);
      }
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        setOpen(false);
      }
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  const needle = filter.trim().toLowerCase();
  const shown =
    needle === "" ? options : options.filter((o) => o.label.toLowerCase().includes(needle));

  return (
    <div className="multiselect" ref={root}>
      <button
        type="button"
        id={id}
        className={`ms-button${selected.length > 0 ? " active" : ""}`}
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((o) => !o)}
      >
        {label}
        {selected.length > 0 && <span className="count">{selected.length}</span>}
        <span className="caret" aria-hidden>
          ▾
        </span>
      </button>
      {open && (
        <div className="ms-popover" id={listId}>
          {searchable && (
            <input
              type="search"
              className="ms-filter"
              placeholder={`Filter ${label.toLowerCase()}…`}
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              // biome-ignore lint/a11y/noAutofocus: the popover was opened to type into it
              autoFocus
            />
          )}
          <ul>
            {shown.map((option) => (
              <li key={option.value}>
                <label>
                  <input
                    type="checkbox"
                    value={option.value}
                    checked={selected.includes(option.value)}
                    onChange={() => onToggle(option.value)}
                  />
                  <span>{option.label}</span>
                  {option.hint && <span className="muted small">{option.hint}</span>}
                </label>
              </li>
            ))}
            {shown.length === 0 && <li className="muted small">Nothing matches.</li>}
          </ul>
          {selected.length > 0 && (
            <button type="button" className="link" onClick={onClear}>
              Clear {label.toLowerCase()}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
