import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { StatePill } from "../../components/StatePill";
import { describeError } from "../../ipc";
import { nodeWord, runWord } from "../../states";
import { runsEvents, runsIpc } from "./api";
import { CostMeter } from "./CostMeter";
import { ago, errorText, formatElapsed, modeTitle, taskTitle } from "./format";
import { firstNode, graphItems, shareNodes, stateOf, streaming } from "./liveView";
import { NodePanel } from "./NodePanel";
import { RunGraph } from "./RunGraph";
import { runsHash } from "./route";
import { applyItems, frameBatcher, type LiveRun, liveFrom, rebase } from "./stream";
import type { RunDetail as Detail, NodeView, RunFeedItem } from "./types";

/** Reloading the detail (tries, tokens, costs) waits for a burst of entries to pass. */
const RELOAD_DELAY_MS = 300;
/** Each page update is measured under this name (`performance.getEntriesByName`). */
export const UPDATE_MEASURE = "runs-update";
/** Of which: waiting for the frame, and applying the batch (React's render and commit). */
export const WAIT_MEASURE = "runs-update-wait";
export const RENDER_MEASURE = "runs-update-render";
export const FRAME_MEASURE = "runs-update-frame";
/** The end of a streaming node's text its pane shows: a little more than fits in the box. */
const LIVE_PANE_CHARS = 700;
/** The most live output panes shown at once. */
const PANES = 4;

/** One run, live: its DAG with node states, streaming output, the cost meter, each node's
 * tries, tokens, timings and context, and cancel / resume / recover. */
export function RunDetail({ id, now }: { id: string; now: () => number }) {
  const [detail, setDetail] = useState<Detail | null>(null);
  const [live, setLive] = useState<LiveRun | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [acting, setActing] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [watchKey, setWatchKey] = useState(0);
  const [rejectReason, setRejectReason] = useState("");
  const since = useRef<number | null>(null);
  const applying = useRef(0);
  const batchSize = useRef(0);
  const rendering = useRef(0);
  const root = useRef<HTMLDivElement>(null);
  const updates = useRef(0);
  const received = useRef(0);

  const load = useCallback(async () => {
    const fresh = await runsIpc.detail(id);
    setDetail((before) => shareNodes(before, fresh));
    setLive((current) => (current ? rebase(current, fresh) : liveFrom(fresh)));
    setError(null);
    return fresh;
  }, [id]);

  // The snapshot first, then everything after its sequence number, live.
  // biome-ignore lint/correctness/useExhaustiveDependencies: watchKey restarts the feed
  useEffect(() => {
    let gone = false;
    const batcher = frameBatcher<RunFeedItem>((items, first) => {
      since.current = first;
      applying.current = performance.now();
      performance.measure(WAIT_MEASURE, { start: first, end: applying.current });
      received.current += items.length;
      batchSize.current = items.length;
      // Rendered inside this frame's callback, so the batch reaches the screen with the
      // frame instead of waiting behind it for React's scheduler.
      flushSync(() => setLive((current) => (current ? applyItems(current, items) : current)));
    });
    void (async () => {
      try {
        const fresh = await load();
        if (gone) return;
        await runsIpc.watch(id, fresh.seq, (item) => {
          if (!gone) batcher.push(item);
        });
      } catch (e) {
        if (!gone) setError(describeError(e).message);
      }
    })();
    return () => {
      gone = true;
      batcher.stop();
    };
  }, [id, load, watchKey]);

  // Measured after React has applied a batch to the page (not the paint: that is the
  // browser's, and the same for every page).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per applied batch
  useLayoutEffect(() => {
    const start = since.current;
    if (start === null) return;
    since.current = null;
    const end = performance.now();
    performance.measure(UPDATE_MEASURE, { start, end, detail: { items: batchSize.current } });
    performance.measure(RENDER_MEASURE, {
      start: applying.current,
      end,
      detail: { render: end - rendering.current },
    });
    // And the browser's own share: style, layout and paint of the frame that shows it, up to
    // the start of the next frame.
    requestAnimationFrame(() => performance.measure(FRAME_MEASURE, { start: end }));
    // Counted on the element, not in state: a second render per batch would double its cost.
    updates.current += 1;
    if (root.current) {
      root.current.dataset.updates = String(updates.current);
      root.current.dataset.items = String(received.current);
    }
  }, [live]);

  const stale = live?.stale ?? false;
  const ended = live?.ended ?? false;
  useEffect(() => {
    if (!stale) return;
    // The last reload of a run that ended is not held back: its totals are final.
    const wait = setTimeout(() => void load().catch(() => {}), ended ? 0 : RELOAD_DELAY_MS);
    return () => clearTimeout(wait);
  }, [stale, ended, load]);

  // A run resumed or recovered elsewhere in the app: follow it again.
  useEffect(() => {
    if (!ended) return;
    const stop = runsEvents.onRunState((change) => {
      if (change.runId === id && change.live) setWatchKey((k) => k + 1);
    });
    return () => void stop.then((f) => f());
  }, [ended, id]);

  const state = live?.state ?? detail?.summary.state;
  useEffect(() => {
    if (state !== "completed" && state !== "failed" && state !== "canceled") {
      setResult(null);
      return;
    }
    let gone = false;
    runsIpc
      .output(id)
      .then((out) => {
        if (!gone) setResult(out.text);
      })
      .catch(() => {});
    return () => {
      gone = true;
    };
  }, [id, state]);

  const items = useMemo(() => (detail ? graphItems(detail, live) : []), [detail, live]);
  const panes = useMemo(
    () => (detail ? streaming(detail, live).slice(0, PANES) : []),
    [detail, live],
  );

  const onRated = useCallback(
    (rated: NodeView) =>
      setDetail((d) =>
        d ? { ...d, nodes: d.nodes.map((n) => (n.id === rated.id ? rated : n)) } : d,
      ),
    [],
  );

  const act = async (what: "cancel" | "resume" | "recover" | "approve" | "reject") => {
    setActing(what);
    setActionError(null);
    try {
      if (what === "cancel") await runsIpc.cancel(id);
      if (what === "resume") await runsIpc.resume(id);
      if (what === "recover") await runsIpc.recover(id);
      if (what === "approve") await runsIpc.approve(id);
      if (what === "reject")
        await runsIpc.reject(id, rejectReason.trim() || "rejected on the run page");
      await load();
      if (what !== "cancel") setWatchKey((k) => k + 1);
    } catch (e) {
      setActionError(describeError(e).message);
    } finally {
      setActing(null);
    }
  };

  if (error && !detail) {
    return (
      <div className="card error-card" id="run-error">
        <p className="error">{error}</p>
        <a href={runsHash({ view: "list" })}>Back to runs</a>
      </div>
    );
  }
  if (!detail || !live) return <p className="muted">Loading…</p>;
  if (since.current !== null) rendering.current = performance.now();

  const summary = detail.summary;
  const shown = selected ?? firstNode(detail, live);
  const node = detail.nodes.find((n) => n.id === shown) ?? null;
  const isLive = live.live;
  const elapsed =
    detail.startedMs != null ? (summary.finishedMs ?? now()) - detail.startedMs : null;
  const reviewTries = detail.nodes.flatMap((n) =>
    n.attempts.filter((t) => t.attemptId).map((t) => ({ node: n.id, attempt: t.attemptId ?? "" })),
  );
  const inReview = detail.nodes.filter((n) => n.state === "review");
  const succeeded = detail.nodes.find((n) => n.role === "cascade" && n.rung != null);
  const escalations =
    succeeded?.attempts.filter((t) => t.purpose === "answer" && t.state === "failed").length ?? 0;

  return (
    <div
      className="run-detail"
      id="run-detail"
      data-run={id}
      data-state={live.state}
      data-seq={live.seq}
      ref={root}
    >
      <header className="page-header">
        <div>
          <p className="eyebrow">
            <a href={runsHash({ view: "list" })}>Runs</a> / <span className="mono">{id}</span>
          </p>
          <h1 title={summary.task}>{taskTitle(summary.task, 100)}</h1>
          <p className="run-facts small">
            <StatePill word={runWord(live.state)} id="run-state" />
            <span>{modeTitle(summary.mode)}</span>
            <span className="muted">launched by</span>
            <span className="mono" id="run-launcher">
              {summary.launcher}
            </span>
            <span className="muted">{ago(summary.createdMs, now())}</span>
            {elapsed != null && <span className="muted">· {formatElapsed(elapsed)}</span>}
          </p>
        </div>
        <span className="grow" />
        <div className="run-actions">
          {live.state === "paused" && (
            <button
              type="button"
              className="primary"
              id="run-resume"
              disabled={acting !== null}
              onClick={() => void act("resume")}
            >
              {acting === "resume" ? "Resuming…" : "Resume"}
            </button>
          )}
          {live.state === "interrupted" && (
            <button
              type="button"
              className="primary"
              id="run-recover"
              disabled={acting !== null}
              onClick={() => void act("recover")}
            >
              {acting === "recover" ? "Recovering…" : "Recover"}
            </button>
          )}
          {runWord(live.state).cancelable && (
            <button
              type="button"
              className="danger-text"
              id="run-cancel"
              disabled={acting !== null}
              onClick={() => void act("cancel")}
            >
              {acting === "cancel" ? "Canceling…" : "Cancel run"}
            </button>
          )}
        </div>
      </header>

      {actionError && (
        <p className="error" id="run-action-error" role="alert">
          {actionError}
        </p>
      )}

      {(live.reason || detail.error) && live.state !== "canceled" && (
        <div className="card run-stop" id="run-reason" data-reason={live.reason ?? ""}>
          {live.reason && summary.reasonText && <p>{summary.reasonText}</p>}
          {detail.error && <p className="muted small">{errorText(detail.error.message)}</p>}
          {live.reason === "budget_exceeded" && (
            <p className="muted small">
              {detail.nodes.some((n) => n.state === "done")
                ? "The nodes that finished keep their results below. "
                : ""}
              Raise the cap on a new run to go further.
            </p>
          )}
        </div>
      )}

      <div className="card">
        <CostMeter
          live={isLive}
          spentUsd={live.spentUsd}
          reservedUsd={live.reservedUsd}
          capUsd={summary.maxUsd}
          savingsUsd={summary.savingsUsd}
          baselineModel={detail.baselineModel}
          baselineUsd={detail.baselineUsd}
          staticUsd={detail.staticUsd}
        />
        {succeeded && detail.ladder && (
          <p className="small" id="run-rung">
            {live.state === "completed" ? "Succeeded on" : "On"} rung {succeeded.rung} of{" "}
            {detail.ladder.rungs.length}: <span className="mono">{succeeded.model ?? "—"}</span>
            {escalations > 0 && ` after ${escalations} escalation${escalations === 1 ? "" : "s"}`}.
          </p>
        )}
      </div>

      <div className="card">
        <div className="card-title-row">
          <h2>Nodes</h2>
          <span className="muted small" id="run-nodes-done">
            {summary.nodesDone}/{summary.nodes} done · up to {detail.limits.maxParallelNodes} at
            once
          </span>
        </div>
        <RunGraph id="run-graph" items={items} selected={shown} onSelect={setSelected} />
      </div>

      {panes.length > 0 && (
        <div className="live-panes" id="run-live" data-panes={panes.length}>
          {panes.map((pane) => (
            <div className="card live-pane" key={pane.id} data-node={pane.id}>
              <div className="card-title-row">
                <h3 className="mono">{pane.id}</h3>
                <span className="pill live">{nodeWord(stateOf(detail, live, pane.id)).label}</span>
                <span className="grow" />
                <span className="muted small">
                  {((live.dropped[pane.id] ?? 0) + pane.text.length).toLocaleString("en-US")} chars
                </span>
              </div>
              <LiveText text={pane.text} />
            </div>
          ))}
        </div>
      )}

      {result !== null && result !== "" && (
        <div className="card" id="run-result">
          <h2>Result</h2>
          <pre className="node-output">{result}</pre>
        </div>
      )}

      {reviewTries.length > 0 && (
        <div className="card" id="run-review-links">
          <h2>Review</h2>
          {live.state === "review" && (
            <div className="run-review-actions">
              {inReview.length === 1 ? (
                <button
                  type="button"
                  className="primary"
                  id="run-approve"
                  disabled={acting !== null}
                  onClick={() => void act("approve")}
                >
                  {acting === "approve"
                    ? "Approving…"
                    : `Approve ${inReview[0]?.id ?? ""} and integrate`}
                </button>
              ) : (
                <p className="small muted">
                  {inReview.length} results await review: compare them and pick one on the review
                  page.
                </p>
              )}
              <input
                type="text"
                id="run-reject-reason"
                aria-label="Why you reject the run"
                placeholder="Why (optional)"
                value={rejectReason}
                onChange={(e) => setRejectReason(e.target.value)}
              />
              <button
                type="button"
                className="danger-text"
                id="run-reject"
                disabled={acting !== null}
                onClick={() => void act("reject")}
              >
                {acting === "reject" ? "Rejecting…" : "Reject run"}
              </button>
            </div>
          )}
          <ul className="review-links">
            {reviewTries.map((t) => (
              <li key={t.attempt}>
                <span className="mono">{t.node}</span>:{" "}
                <a href={`#/review/${t.attempt}`}>attempt {t.attempt}</a>
              </li>
            ))}
          </ul>
        </div>
      )}

      {node && (
        <NodePanel
          runId={id}
          inPane={panes.some((p) => p.id === node.id)}
          node={node}
          state={stateOf(detail, live, node.id)}
          live={live.text[node.id]}
          dropped={live.dropped[node.id] ?? 0}
          onRated={onRated}
        />
      )}
    </div>
  );
}

/** The end of a node's streamed text. The box keeps its newest line in view by itself (a
 * reversed flex column starts at the bottom), so no update has to measure it. */
const LiveText = memo(function LiveText({ text }: { text: string }) {
  return (
    <div className="live-scroll">
      <pre className="node-output live-text">{text.slice(-LIVE_PANE_CHARS)}</pre>
    </div>
  );
});
