import { useCallback, useEffect, useRef, useState } from "react";
import {
  catalogEvents,
  catalogIpc,
  describeError,
  type RefreshId,
  type RefreshProgress,
  type RefreshReport,
  type SourceId,
} from "../../ipc";

export interface RefreshState {
  /**
   * The refresh this view follows: the one it started, the one its start joined, or one it
   * saw begin (the engine's schedule). `null` before any, and while a start is on its way.
   */
  refreshId: RefreshId | null;
  running: boolean;
  /** The latest step of each source in the followed refresh. */
  steps: Partial<Record<SourceId, RefreshProgress>>;
  report: RefreshReport | null;
  error: string | null;
  /** Where the followed refresh reads from: `null` = the network. */
  fromDir: string | null;
  /** The last start found a refresh already running and follows that one instead. */
  joined: boolean;
  /** The held-back source being accepted, if any. */
  accepting: SourceId | null;
  acceptError: string | null;
}

const IDLE: RefreshState = {
  refreshId: null,
  running: false,
  steps: {},
  report: null,
  error: null,
  fromDir: null,
  joined: false,
  accepting: null,
  acceptError: null,
};

/** Which refresh a view follows; kept in a ref so event handlers decide synchronously. */
interface Tracking {
  id: RefreshId | null;
  running: boolean;
}

/**
 * Whether an event of refresh `id` belongs to the view: the followed refresh, any refresh
 * while a start is on its way or before any (its id is not known yet), or a new refresh seen
 * while idle. Events of any other refresh are ignored, so they can never end this view's
 * refresh.
 */
function follows(track: Tracking, id: RefreshId): boolean {
  return track.id === id || track.id === null || !track.running;
}

/** The state for a newly followed refresh `id`. */
function adopt(s: RefreshState, id: RefreshId, fromDir: string | null): RefreshState {
  return {
    ...s,
    refreshId: id,
    running: true,
    steps: {},
    report: null,
    error: null,
    fromDir,
  };
}

/**
 * Follows catalog refreshes by id (one started here, or by the engine's schedule), starts
 * refreshes and accepts held-back snapshots. `onFinished` runs after each followed refresh
 * that produced a report and after each accept.
 */
export function useCatalogRefresh(onFinished: () => void) {
  const [state, setState] = useState<RefreshState>(IDLE);
  const track = useRef<Tracking>({ id: null, running: false });
  const finished = useRef(onFinished);
  finished.current = onFinished;

  useEffect(() => {
    const started = catalogEvents.onRefreshStarted((event) => {
      const id = event.refreshId;
      if (track.current.id === id || !follows(track.current, id)) {
        return;
      }
      track.current = { id, running: true };
      setState((s) => adopt(s, id, event.fromDir));
    });
    const progress = catalogEvents.onRefreshProgress(({ refreshId: id, progress: step }) => {
      if (!follows(track.current, id)) {
        return;
      }
      const fresh = track.current.id !== id;
      const running = step.source !== null || step.stage !== "finished";
      track.current = { id, running };
      setState((s) => {
        const base = fresh ? adopt(s, id, s.fromDir) : s;
        if (step.source === null) {
          return { ...base, running };
        }
        return { ...base, running, steps: { ...base.steps, [step.source]: step } };
      });
    });
    const done = catalogEvents.onRefreshed((outcome) => {
      const id = outcome.refreshId;
      const pending = track.current.id === null && track.current.running;
      if (track.current.id !== id && !pending) {
        return;
      }
      track.current = { id, running: false };
      setState((s) => ({
        ...s,
        refreshId: id,
        running: false,
        report: outcome.report,
        error: outcome.error ? outcome.error.message : null,
      }));
      if (outcome.report) {
        finished.current();
      }
    });
    return () => {
      void started.then((stop) => stop());
      void progress.then((stop) => stop());
      void done.then((stop) => stop());
    };
  }, []);

  const start = useCallback(async (fromDir: string | null) => {
    track.current = { id: null, running: true };
    setState({ ...IDLE, running: true, fromDir });
    try {
      const ticket = await catalogIpc.refresh(fromDir);
      const joined = ticket.alreadyRunning;
      if (track.current.id === ticket.refreshId) {
        // Its events (perhaps all of them) arrived before the answer.
        setState((s) => ({ ...s, joined }));
        return;
      }
      track.current = { id: ticket.refreshId, running: true };
      setState((s) => ({ ...s, refreshId: ticket.refreshId, running: true, joined }));
    } catch (e) {
      track.current = { id: null, running: false };
      setState((s) => ({ ...s, running: false, error: describeError(e).message }));
    }
  }, []);

  const accept = useCallback(async (source: SourceId) => {
    setState((s) => ({ ...s, accepting: source, acceptError: null }));
    try {
      await catalogIpc.acceptHeld(source);
      setState((s) => ({ ...s, accepting: null }));
      finished.current();
    } catch (e) {
      setState((s) => ({ ...s, accepting: null, acceptError: describeError(e).message }));
    }
  }, []);

  return { refresh: state, startRefresh: start, acceptHeld: accept };
}
