import { type FormEvent, useId, useState } from "react";
import {
  type CatalogStatus,
  catalogIpc,
  describeError,
  type MatchRule,
  type ModelCard,
  type ModelDetail,
  type SourceId,
} from "../../ipc";
import { ruleLabel, SOURCE_LABEL, SOURCES } from "./format";

const BENCHMARK_SOURCES = SOURCES.filter((s) => s !== "openRouter");

interface Removed {
  source: SourceId;
  key: string;
}

export interface MatchEditorProps {
  card: ModelCard;
  status: CatalogStatus | null;
  /** The model rebuilt by the engine after an edit (card and score breakdowns). */
  onDetail: (detail: ModelDetail) => void;
  /** Something changed that other views show (scores, counts). */
  onChanged: () => void;
}

/** The source records a model was matched to, by which rule, with remove, add and undo. */
export function MatchEditor({ card, status, onDetail, onChanged }: MatchEditorProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [removed, setRemoved] = useState<Removed[]>([]);
  const [source, setSource] = useState<SourceId>("artificialAnalysis");
  const [key, setKey] = useState("");
  const listId = useId();

  const run = async (action: () => Promise<ModelDetail>, after?: (card: ModelCard) => void) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const rebuilt = await action();
      onDetail(rebuilt);
      after?.(rebuilt.card);
      onChanged();
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  const remove = (matchSource: SourceId, name: string, rule: MatchRule) =>
    run(async () => {
      if (rule === "manual") {
        // A match the user added: forgetting the correction is what removes it.
        await catalogIpc.clearMatchOverride(matchSource, name, card.id);
        return catalogIpc.getModel(card.id);
      }
      const rebuilt = await catalogIpc.setMatchOverride({
        source: matchSource,
        key: name,
        modelId: card.id,
        action: "remove",
      });
      setRemoved((list) => [...list, { source: matchSource, key: name }]);
      return rebuilt;
    });

  const undo = (entry: Removed) =>
    run(async () => {
      await catalogIpc.clearMatchOverride(entry.source, entry.key, card.id);
      setRemoved((list) => list.filter((r) => r !== entry));
      return catalogIpc.getModel(card.id);
    });

  const add = (event: FormEvent) => {
    event.preventDefault();
    const record = key.trim();
    if (record === "") {
      return;
    }
    void run(
      () => catalogIpc.setMatchOverride({ source, key: record, modelId: card.id, action: "add" }),
      (rebuilt) => {
        setKey("");
        if (!rebuilt.matches.some((m) => m.source === source && m.name === record)) {
          setNotice(
            `${SOURCE_LABEL[source]} has no record “${record}” in the data in use; the match is stored and applies when it appears.`,
          );
        }
      },
    );
  };

  const unmatched = status?.sources.find((s) => s.source === source)?.unmatchedKeys ?? [];
  const bySource = BENCHMARK_SOURCES.map(
    (s) => [s, card.matches.filter((m) => m.source === s)] as const,
  ).filter(([, list]) => list.length > 0);

  return (
    <div className="matches" id="model-matches">
      {bySource.length === 0 ? (
        <p className="muted">Not matched to any benchmark source.</p>
      ) : (
        <table className="match-table">
          <tbody>
            {bySource.map(([matchSource, list]) =>
              list.map((match, i) => (
                <tr
                  key={`${matchSource}:${match.name}`}
                  data-source={matchSource}
                  data-record={match.name}
                >
                  <th scope="row">{i === 0 ? SOURCE_LABEL[matchSource] : ""}</th>
                  <td className="mono">{match.name}</td>
                  <td>
                    <span className={`rule rule-${match.rule}`} title={match.rule}>
                      {ruleLabel(match.rule)}
                    </span>
                  </td>
                  <td>
                    {match.primary ? (
                      <span className="pill ok" title="This record supplied the values">
                        values
                      </span>
                    ) : (
                      <span
                        className="pill"
                        title="Matched too, kept visible; another record supplied the values"
                      >
                        variant
                      </span>
                    )}
                  </td>
                  <td className="end">
                    <button
                      type="button"
                      className="small-button"
                      disabled={busy}
                      title="This record is not this model: remove the match (kept on every refresh)"
                      onClick={() => void remove(matchSource, match.name, match.rule)}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      )}
      {removed.length > 0 && (
        <ul className="removed">
          {removed.map((entry) => (
            <li key={`${entry.source}:${entry.key}`}>
              Removed <span className="mono">{entry.key}</span> ({SOURCE_LABEL[entry.source]})
              <button
                type="button"
                className="link"
                disabled={busy}
                onClick={() => void undo(entry)}
              >
                Undo
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="add-match" onSubmit={add}>
        <span className="muted small">Add a match:</span>
        <select
          aria-label="Source"
          value={source}
          onChange={(e) => setSource(e.target.value as SourceId)}
        >
          {BENCHMARK_SOURCES.map((s) => (
            <option key={s} value={s}>
              {SOURCE_LABEL[s]}
            </option>
          ))}
        </select>
        <input
          aria-label="Record name in that source"
          placeholder="record name (unmatched ones are suggested)"
          list={listId}
          value={key}
          onChange={(e) => setKey(e.target.value)}
        />
        <datalist id={listId}>
          {unmatched.map((k) => (
            <option key={k} value={k} />
          ))}
        </datalist>
        <button type="submit" disabled={busy || key.trim() === ""}>
          Add
        </button>
      </form>
      {notice && <p className="muted small">{notice}</p>}
      {error && <p className="error small">{error}</p>}
    </div>
  );
}
