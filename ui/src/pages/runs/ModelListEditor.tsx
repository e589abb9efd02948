import { useState } from "react";
import { move, removeAt, setAt } from "./launch";

interface Props {
  /** `rung` (cascade: ordered, tiers shown) or `member` (collective). */
  kind: "rung" | "member";
  models: readonly string[];
  /** A label per row (the rung's tier), when there is one. */
  labels?: readonly string[];
  min: number;
  max: number;
  /** Model ids to suggest. */
  known: readonly string[];
  placeholder: string;
  /** Called with the whole list after an edit is committed (blur, Enter, add, remove, move). */
  onChange: (models: string[]) => void;
}

/** Editable rows of model references: a cascade's ladder or a collective's members. */
export function ModelListEditor({
  kind,
  models,
  labels,
  min,
  max,
  known,
  placeholder,
  onChange,
}: Props) {
  const [draft, setDraft] = useState<string[]>([...models]);
  // A new list from the engine (a fresh preview) replaces the rows; the same list passed
  // again (a re-render) keeps what is being typed.
  const signature = models.join("\n");
  const [seen, setSeen] = useState(signature);
  if (signature !== seen) {
    setSeen(signature);
    setDraft([...models]);
  }
  const list = `runs-known-models-${kind}`;
  const commit = (next: string[]) => {
    if (next.join("\n") !== models.join("\n")) onChange(next);
  };
  return (
    <div className={`model-list ${kind}s`} id={`run-${kind}s`} data-count={draft.length}>
      <ol>
        {draft.map((model, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
          <li key={i} className="model-row" data-row={i}>
            <span className="row-label small">
              {kind === "rung" ? `Rung ${i + 1}` : `Member ${i + 1}`}
              {labels?.[i] && <span className="muted"> · {labels[i]}</span>}
            </span>
            <input
              className="mono"
              id={`run-${kind}-${i}`}
              aria-label={`${kind === "rung" ? "Rung" : "Member"} ${i + 1} model`}
              list={list}
              placeholder={placeholder}
              value={model}
              onChange={(e) => setDraft(setAt(draft, i, e.target.value))}
              onBlur={() => commit(draft)}
              onKeyDown={(e) => {
                if (e.key === "Enter") {
                  e.preventDefault();
                  e.currentTarget.blur();
                }
              }}
            />
            {kind === "rung" && (
              <>
                <button
                  type="button"
                  className="ghost"
                  aria-label={`Move rung ${i + 1} up`}
                  disabled={i === 0}
                  onClick={() => commit(move(draft, i, -1))}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="ghost"
                  aria-label={`Move rung ${i + 1} down`}
                  disabled={i === draft.length - 1}
                  onClick={() => commit(move(draft, i, 1))}
                >
                  ↓
                </button>
              </>
            )}
            <button
              type="button"
              className="ghost"
              aria-label={`Remove ${kind} ${i + 1}`}
              disabled={draft.length <= min}
              onClick={() => commit(removeAt(draft, i))}
            >
              ×
            </button>
          </li>
        ))}
      </ol>
      <datalist id={list}>
        {known.map((id) => (
          <option key={id} value={id} />
        ))}
      </datalist>
      {draft.length < max && (
        <button
          type="button"
          className="ghost"
          id={`run-add-${kind}`}
          onClick={() => setDraft([...draft, ""])}
        >
          {kind === "rung" ? "Add a rung" : "Add a member"}
        </button>
      )}
    </div>
  );
}
