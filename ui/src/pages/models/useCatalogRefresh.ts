import { useCallback, useEffect, useRef, useState } from "react";
import {
  catalogEvents,
  catalogIpc,
  describeError,
  type RefreshProgress,
  type RefreshReport,
  type SourceId,
} from "../../ipc";

export interface RefreshState {
  running: boolean;
  /** The latest step of each source in the running (or last) refresh. */
  steps: Partial<Record<SourceId, RefreshProgress>>;
  report: RefreshReport | null;
  error: string | null;
  /** Where the last refresh read from: `null` = the network. */
  fromDir: string | null;
}

const IDLE: RefreshState = { running: false, steps: {}, report: null, error: null, fromDir: null };

/**
 * Listens to the catalog refresh events (a refresh started here or in the background) and
 * starts refreshes. `onFinished` runs after each refresh that produced a report.
 */
export function useCatalogRefresh(onFinished: () => void) {
  const [state, setState] = useState<RefreshState>(IDLE);
  const finished = useRef(onFinished);
  finished.current = onFinished;

  useEffect(() => {
    const progress = catalogEvents.onRefreshProgress((step) => {
      setState((s) => {
        if (step.source === null) {
          return step.stage === "started"
            ? { ...s, running: true, steps: {}, report: null, error: null }
            : { ...s, running: step.stage !== "finished" };
        }
        return { ...s, running: true, steps: { ...s.steps, [step.source]: step } };
      });
    });
    const done = catalogEvents.onRefreshed((outcome) => {
      setState((s) => ({
        ...s,
        running: false,
        report: outcome.report,
        error: outcome.error ? outcome.error.message : null,
      }));
      if (outcome.report) {
        finished.current();
      }
    });
    return () => {
      void progress.then((stop) => stop());
      void done.then((stop) => stop());
    };
  }, []);

  const start = useCallback(async (fromDir: string | null) => {
    setState({ ...IDLE, running: true, fromDir });
    try {
      await catalogIpc.refresh(fromDir);
    } catch (e) {
      setState((s) => ({ ...s, running: false, error: describeError(e).message }));
    }
  }, []);

  return { refresh: state, startRefresh: start };
}
