import { useCallback, useEffect, useRef, useState } from "react";
import { describeError } from "../../ipc";
import { RUN_STATES, runWord } from "../../states";
import { runsEvents, runsIpc } from "./api";
import { isFiltered, type ListFilter, launchersOf, NO_FILTER, runFilter } from "./filters";
import { MODES } from "./format";
import { RunList } from "./RunList";
import { runsHash } from "./route";
import { SpendPanel } from "./SpendPanel";
import type { RunState, RunSummary } from "./types";

/** How often the list re-reads while a run is live (runs of other processes send no events). */
const POLL_MS = 2500;
/** Run events come in bursts (a swarm's nodes); one reload per burst. */
const RELOAD_DELAY_MS = 250;

// The filter survives visiting a run and coming back.
let keptFilter: ListFilter = NO_FILTER;

/** The Runs page's front: spend and savings, the filter bar and the run list. */
export function RunsList({ now }: { now: () => number }) {
  const [filter, setFilter] = useState<ListFilter>(keptFilter);
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [launchers, setLaunchers] = useState<string[]>(["app", "cli"]);
  const [error, setError] = useState<string | null>(null);
  const [finished, setFinished] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    keptFilter = filter;
  }, [filter]);

  const load = useCallback(async () => {
    try {
      const list = await runsIpc.list(runFilter(filter));
      setRuns(list);
      setLaunchers((known) => launchersOf(list, known));
      setError(null);
    } catch (e) {
      setError(describeError(e).message);
    }
  }, [filter]);

  useEffect(() => {
    // Typing in the search box reloads once the user pauses.
    const wait = setTimeout(() => void load(), filter.text === "" ? 0 : 200);
    return () => clearTimeout(wait);
  }, [load, filter.text]);

  useEffect(() => {
    const soon = () => {
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => void load(), RELOAD_DELAY_MS);
    };
    const stops = [
      runsEvents.onRunState((change) => {
        soon();
        if (!change.live) setFinished((n) => n + 1);
      }),
      runsEvents.onRunNode(soon),
    ];
    return () => {
      if (timer.current) clearTimeout(timer.current);
      for (const stop of stops) void stop.then((f) => f());
    };
  }, [load]);

  const anyLive = runs?.some((r) => r.live) ?? false;
  useEffect(() => {
    if (!anyLive) return;
    const poll = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(poll);
  }, [anyLive, load]);

  const set = (patch: Partial<ListFilter>) => setFilter({ ...filter, ...patch });
  const empty = runs !== null && runs.length === 0;

  return (
    <>
      <header className="page-header">
        <div>
          <h1>Runs</h1>
          <p className="muted">
            One task across one or many models: single, collective, cascade, plan or swarm, under a
            hard USD cap, watched live.
          </p>
        </div>
        <span className="grow" />
        <a className="button primary" href={runsHash({ view: "new" })} id="runs-new">
          New run
        </a>
      </header>

      <SpendPanel version={finished} now={now} />

      <div className="card runs-list-card">
        <div className="run-filters" id="runs-filters">
          <input
            type="search"
            id="runs-filter-text"
            placeholder="Search tasks"
            aria-label="Search tasks"
            value={filter.text}
            onChange={(e) => set({ text: e.target.value })}
          />
          <select
            id="runs-filter-state"
            aria-label="State"
            value={filter.state}
            onChange={(e) => set({ state: e.target.value as RunState | "" })}
          >
            <option value="">Any state</option>
            {RUN_STATES.map((s) => (
              <option key={s} value={s}>
                {runWord(s).label}
              </option>
            ))}
          </select>
          <select
            id="runs-filter-mode"
            aria-label="Mode"
            value={filter.mode}
            onChange={(e) => set({ mode: e.target.value as ListFilter["mode"] })}
          >
            <option value="">Any mode</option>
            {MODES.map((m) => (
              <option key={m.id} value={m.id}>
                {m.title}
              </option>
            ))}
          </select>
          <input
            type="text"
            id="runs-filter-launcher"
            list="runs-launchers"
            placeholder="Launched by"
            aria-label="Launched by"
            value={filter.launcher}
            onChange={(e) => set({ launcher: e.target.value })}
          />
          <datalist id="runs-launchers">
            {launchers.map((l) => (
              <option key={l} value={l} />
            ))}
          </datalist>
          {isFiltered(filter) && (
            <button
              type="button"
              className="ghost"
              id="runs-filter-clear"
              onClick={() => setFilter(NO_FILTER)}
            >
              Clear
            </button>
          )}
        </div>
        {error && (
          <p className="error" id="runs-error">
            {error}
          </p>
        )}
        {runs === null && !error && <p className="muted">Loading…</p>}
        {empty && !isFiltered(filter) && (
          <div className="runs-empty" id="runs-empty">
            <p>
              <strong>No runs yet.</strong> Start one with <em>New run</em>, from the Route page's
              Launch, or from a terminal:
            </p>
            <pre className="mono small">
              switchyard run --mode cascade --task "…" --max-usd 0.50
            </pre>
            <p className="muted small">
              Runs launched by the CLI or by an agent (its <code>PARENT_AGENT</code>) show here too.
            </p>
          </div>
        )}
        {empty && isFiltered(filter) && (
          <p className="muted" id="runs-none-match">
            No run matches these filters.
          </p>
        )}
        {runs && runs.length > 0 && <RunList runs={runs} now={now()} />}
      </div>
    </>
  );
}
