import { useEffect, useState } from "react";
import { catalogIpc, describeError, type ModelCard } from "../../ipc";
import { type CompareRow, compareRows } from "./compare";

type Load =
  | { state: "idle" | "loading" }
  | { state: "ready"; cards: ModelCard[] }
  | { state: "failed"; message: string };

const GROUP_TITLE: Record<CompareRow["group"], string> = {
  facts: "Facts",
  scores: "Category scores (0–100)",
  efficiency: "Score per blended $/M",
};

export interface CompareViewProps {
  ids: readonly string[];
  onOpen: (id: string) => void;
  onRemove: (id: string) => void;
  onClear: () => void;
}

/** 2–5 models side by side; the best value of each row is marked, differing rows flagged. */
export function CompareView({ ids, onOpen, onRemove, onClear }: CompareViewProps) {
  const [load, setLoad] = useState<Load>({ state: "idle" });
  const [onlyDiffs, setOnlyDiffs] = useState(false);
  const key = ids.join("\n");

  useEffect(() => {
    const list = key === "" ? [] : key.split("\n");
    if (list.length < 2) {
      setLoad({ state: "idle" });
      return;
    }
    let current = true;
    setLoad((old) => (old.state === "ready" ? old : { state: "loading" }));
    catalogIpc
      .compareModels(list)
      .then((cards) => current && setLoad({ state: "ready", cards }))
      .catch(
        (e: unknown) => current && setLoad({ state: "failed", message: describeError(e).message }),
      );
    return () => {
      current = false;
    };
  }, [key]);

  if (ids.length < 2) {
    return (
      <div className="card empty-state" id="compare-view" data-state="idle">
        <h2>Compare models</h2>
        <p className="muted">
          Tick 2 to 5 models in the table (or “Add to compare” in a model's details) to see them
          side by side. {ids.length === 1 && "One is selected so far."}
        </p>
      </div>
    );
  }
  if (load.state === "failed") {
    return (
      <div className="card" id="compare-view" data-state="failed">
        <p className="error">{load.message}</p>
      </div>
    );
  }
  if (load.state !== "ready") {
    return (
      <div className="card" id="compare-view" data-state="loading">
        <p className="muted">Loading…</p>
      </div>
    );
  }
  const cards = load.cards;
  const rows = compareRows(cards);
  const shown = onlyDiffs ? rows.filter((r) => r.differs) : rows;
  const groups = (["facts", "scores", "efficiency"] as const).filter((g) =>
    shown.some((r) => r.group === g),
  );
  return (
    <div className="card compare" id="compare-view" data-state="ready" data-models={cards.length}>
      <div className="card-title-row">
        <h2>Compare {cards.length} models</h2>
        <span className="muted small">
          <span className="best-mark">★</span> best in the row · <span className="diff-mark" />{" "}
          values differ
        </span>
        <span className="grow" />
        <label className="small">
          <input
            type="checkbox"
            checked={onlyDiffs}
            onChange={(e) => setOnlyDiffs(e.target.checked)}
          />{" "}
          Only differences
        </label>
        <button type="button" onClick={onClear}>
          Clear selection
        </button>
      </div>
      <div className="compare-scroll">
        <table className="compare-table" style={{ "--cols": cards.length } as React.CSSProperties}>
          <thead>
            <tr>
              <th scope="col" />
              {cards.map((card) => (
                <th scope="col" key={card.id} data-model-id={card.id}>
                  <button type="button" className="link model-link" onClick={() => onOpen(card.id)}>
                    {card.name}
                  </button>
                  <span className="mono muted small">{card.id}</span>
                  <button
                    type="button"
                    className="icon-button small"
                    aria-label={`Remove ${card.name} from compare`}
                    onClick={() => onRemove(card.id)}
                  >
                    ×
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          {groups.map((group) => (
            <tbody key={group}>
              <tr className="group-row">
                <th scope="colgroup" colSpan={cards.length + 1}>
                  {GROUP_TITLE[group]}
                </th>
              </tr>
              {shown
                .filter((r) => r.group === group)
                .map((row) => (
                  <tr
                    key={row.key}
                    data-row={row.key}
                    className={row.differs ? "differs" : undefined}
                  >
                    <th scope="row">
                      {row.label}
                      {row.better && (
                        <span className="muted small">
                          {" "}
                          {row.better === "higher" ? "↑ better" : "↓ better"}
                        </span>
                      )}
                    </th>
                    {row.cells.map((cell, i) => (
                      <td
                        key={cards[i]?.id ?? i}
                        className={cell.best ? "best" : undefined}
                        data-best={cell.best}
                      >
                        {cell.best && (
                          <span className="best-mark" title="best in the row">
                            ★
                          </span>
                        )}
                        {cell.text}
                        {cell.note && <span className="muted small cell-note">{cell.note}</span>}
                      </td>
                    ))}
                  </tr>
                ))}
            </tbody>
          ))}
        </table>
      </div>
    </div>
  );
}
