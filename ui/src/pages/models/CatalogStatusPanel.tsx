import { type FormEvent, useState } from "react";
import type { CatalogStatus, HeldSnapshot, RefreshProgress, SourceId } from "../../ipc";
import { formatTime, SOURCE_LABEL, UNKNOWN } from "./format";
import type { RefreshState } from "./useCatalogRefresh";

const STAGE_LABEL: Record<RefreshProgress["stage"], string> = {
  started: "starting",
  fetching: "fetching",
  parsing: "parsing",
  saved: "saved",
  failed: "failed",
  heldBack: "held back",
  finished: "done",
};

function stageClass(stage: RefreshProgress["stage"]): string {
  return stage === "failed" ? "fail" : stage === "saved" || stage === "finished" ? "ok" : "warn";
}

export interface CatalogStatusPanelProps {
  status: CatalogStatus | null;
  statusError: string | null;
  refresh: RefreshState;
  onRefresh: (fromDir: string | null) => void;
  /** "Accept anyway" for a source whose refreshed snapshot was held back. */
  onAccept: (source: SourceId) => void;
}

/** A held-back snapshot: why, and the explicit way to apply it anyway. */
function HeldBack({
  held,
  disabled,
  accepting,
  onAccept,
}: {
  held: HeldSnapshot;
  disabled: boolean;
  accepting: boolean;
  onAccept: (source: SourceId) => void;
}) {
  return (
    <div className="held-back small" data-held={held.source}>
      <div className="error">{held.message}</div>
      <button
        type="button"
        className="small"
        data-accept={held.source}
        disabled={disabled}
        title={`Replace the ${held.previousRecords} records in use with the ${held.records} of ${held.origin}`}
        onClick={() => onAccept(held.source)}
      >
        {accepting ? "Accepting…" : `Accept anyway (${held.records} records)`}
      </button>
    </div>
  );
}

/** Where the catalog's data comes from, per source, with refresh and import. */
export function CatalogStatusPanel({
  status,
  statusError,
  refresh,
  onRefresh,
  onAccept,
}: CatalogStatusPanelProps) {
  const [folder, setFolder] = useState("");
  const importFolder = (event: FormEvent) => {
    event.preventDefault();
    if (folder.trim() !== "") {
      onRefresh(folder.trim());
    }
  };
  const bundled = new Set<SourceId>(status?.bundledSources ?? []);
  const held = new Map<SourceId, HeldSnapshot>((status?.held ?? []).map((h) => [h.source, h]));
  const running = refresh.running || (status?.refreshing ?? false);

  return (
    <div className="catalog-status" id="catalog-status" data-refreshing={running}>
      <div className="card">
        <div className="card-title-row">
          <h2>Catalog sources</h2>
          {status && (
            <span className="muted small">
              {status.modelCount} models · newest data {status.snapshotDate ?? UNKNOWN}
            </span>
          )}
          <span className="grow" />
          <button
            type="button"
            id="catalog-refresh"
            disabled={running}
            onClick={() => onRefresh(null)}
          >
            {running ? "Refreshing…" : "Refresh from the network"}
          </button>
        </div>
        <form className="import-row" onSubmit={importFolder}>
          <label htmlFor="catalog-import-dir" className="muted small">
            Import from a folder laid out like the corpus (openrouter/, artificial-analysis/,
            hf-open-llm-leaderboard/, lmarena/, livebench/; newest file per source wins):
          </label>
          <div className="import-controls">
            <input
              id="catalog-import-dir"
              className="mono"
              placeholder="/path/to/folder"
              value={folder}
              onChange={(e) => setFolder(e.target.value)}
            />
            <button type="submit" id="catalog-import" disabled={running || folder.trim() === ""}>
              Import
            </button>
          </div>
        </form>
        {bundled.size > 0 && (
          <p className="note" id="catalog-bundled-note">
            {bundled.size === 5
              ? "All sources are"
              : `${[...bundled].map((s) => SOURCE_LABEL[s]).join(", ")}:`}{" "}
            served from the snapshot bundled with the app
            {status?.bundledDate ? ` (produced ${status.bundledDate})` : ""}. Refresh to fetch newer
            data.
          </p>
        )}
        {statusError && <p className="error">{statusError}</p>}
        {refresh.error && (
          <p className="error" id="catalog-refresh-error">
            Refresh failed: {refresh.error}
          </p>
        )}
        {refresh.joined && refresh.running && (
          <p className="note" id="catalog-refresh-joined">
            A refresh was already running; following it. Start again when it is done to read from
            somewhere else.
          </p>
        )}
        {refresh.acceptError && (
          <p className="error" id="catalog-accept-error">
            Could not accept: {refresh.acceptError}
          </p>
        )}
        {status ? (
          <table className="status-table" id="catalog-sources">
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Data date</th>
                <th scope="col">Fetched</th>
                <th scope="col" className="end">
                  Records
                </th>
                <th scope="col" className="end">
                  Matched
                </th>
                <th scope="col" className="end">
                  Unmatched
                </th>
                <th scope="col" className="end">
                  Skipped
                </th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {status.sources.map((s) => {
                const step = refresh.steps[s.source];
                const kept = held.get(s.source);
                return (
                  <tr key={s.source} data-source={s.source}>
                    <th scope="row">
                      {SOURCE_LABEL[s.source]}
                      {bundled.has(s.source) && <span className="pill small-pill">bundled</span>}
                    </th>
                    <td>{s.dataDate ?? UNKNOWN}</td>
                    <td>{formatTime(s.fetchedAt)}</td>
                    <td className="end">{s.records}</td>
                    <td className="end">{s.matched}</td>
                    <td className="end">{s.unmatched}</td>
                    <td className="end">{s.skipped}</td>
                    <td>
                      {step ? (
                        <span
                          className={`pill ${stageClass(step.stage)}`}
                          title={step.message ?? undefined}
                        >
                          {STAGE_LABEL[step.stage]}
                        </span>
                      ) : kept ? (
                        <span className="pill warn" title={kept.message}>
                          held back
                        </span>
                      ) : s.error ? (
                        <span className="pill fail" title={s.error}>
                          error
                        </span>
                      ) : (
                        <span className="pill ok">ok</span>
                      )}
                      {kept ? (
                        <HeldBack
                          held={kept}
                          disabled={running || refresh.accepting !== null}
                          accepting={refresh.accepting === s.source}
                          onAccept={onAccept}
                        />
                      ) : (
                        s.error && <div className="error small">{s.error}</div>
                      )}
                      {step?.message && step.stage === "failed" && (
                        <div className="error small">{step.message}</div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        ) : (
          !statusError && <p className="muted">Loading…</p>
        )}
      </div>

      {refresh.report && (
        <div className="card" id="catalog-refresh-report">
          <h2>
            Last refresh{" "}
            {refresh.fromDir ? (
              <span className="mono small">from {refresh.fromDir}</span>
            ) : (
              "from the network"
            )}
          </h2>
          <p className="muted small">
            {refresh.report.modelCount} models · newest data{" "}
            {refresh.report.snapshotDate ?? UNKNOWN}
          </p>
          <table className="status-table">
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Read</th>
                <th scope="col" className="end">
                  Records
                </th>
                <th scope="col" className="end">
                  Matched
                </th>
                <th scope="col" className="end">
                  Unmatched
                </th>
                <th scope="col" className="end">
                  Skipped
                </th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {refresh.report.sources.map((s) => (
                <tr key={s.source} data-source={s.source}>
                  <th scope="row">{SOURCE_LABEL[s.source]}</th>
                  <td className="mono small origin" title={s.origin ?? undefined}>
                    {s.origin ?? UNKNOWN}
                  </td>
                  <td className="end">{s.records}</td>
                  <td className="end">{s.matched}</td>
                  <td className="end">{s.unmatched}</td>
                  <td className="end">{s.skipped}</td>
                  <td>
                    {s.held ? (
                      <span className="error small">{s.error}</span>
                    ) : s.error ? (
                      <span className="error small">{s.error} (previous data kept)</span>
                    ) : (
                      <span className="pill ok">updated</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {status?.sources.some((s) => s.unmatchedKeys.length > 0) && (
        <div className="card">
          <h2>Unmatched records</h2>
          <p className="muted small">
            Records no catalog model was matched to (precision over recall: a wrong match is worse
            than none). Open a model and use “Add a match” to tie one to it.
          </p>
          {status.sources
            .filter((s) => s.unmatchedKeys.length > 0)
            .map((s) => (
              <details key={s.source} className="unmatched" data-source={s.source}>
                <summary>
                  {SOURCE_LABEL[s.source]} <span className="muted">— {s.unmatched} unmatched</span>
                  {s.unmatched > s.unmatchedKeys.length && (
                    <span className="muted small"> (first {s.unmatchedKeys.length} listed)</span>
                  )}
                </summary>
                <ul className="unmatched-list mono">
                  {s.unmatchedKeys.map((k) => (
                    <li key={k}>{k}</li>
                  ))}
                </ul>
              </details>
            ))}
        </div>
      )}
    </div>
  );
}
