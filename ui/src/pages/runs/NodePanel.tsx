import { memo, useEffect, useState } from "react";
import { StatePill } from "../../components/StatePill";
import { type ConfinementReport, describeError, reviewIpc } from "../../ipc";
import { nodeWord } from "../../states";
import { ConfinementBadge, ConfinementPanel } from "../review/ConfinementPanel";
import { reviewHash } from "../review/route";
import { Stars } from "../route/Stars";
import { runsIpc } from "./api";
import { errorText, formatCost, formatElapsed, formatTokens } from "./format";
import type { NodeState, NodeView } from "./types";

interface Props {
  runId: string;
  /** Its streamed text shows in a live pane above (not drawn twice while it streams). */
  inPane: boolean;
  node: NodeView;
  /** The node's state as the log says now (it may be newer than `node`). */
  state: NodeState;
  /** What it streamed so far, while it runs. */
  live: string | undefined;
  dropped: number;
  onRated: (node: NodeView) => void;
}

/** The most characters of a running node's text the panel shows (its live pane shows less). */
const PANEL_TAIL = 4000;

/** One node: its tries with tokens, costs and timings, the context it received, its output. */
export const NodePanel = memo(function NodePanel({
  runId,
  inPane,
  node,
  state,
  live,
  dropped,
  onRated,
}: Props) {
  const [stored, setStored] = useState<string | null>(null);
  const [outputError, setOutputError] = useState<string | null>(null);
  const [rating, setRating] = useState(false);
  const [rateError, setRateError] = useState<string | null>(null);
  const finished = nodeWord(state).hasResult;

  useEffect(() => {
    let gone = false;
    setStored(null);
    setOutputError(null);
    if (!finished || node.kind === "code") return;
    runsIpc
      .output(runId, node.id)
      .then((out) => {
        if (!gone) setStored(out.nodes[0]?.text ?? out.text);
      })
      .catch((e) => {
        if (!gone) setOutputError(describeError(e).message);
      });
    return () => {
      gone = true;
    };
  }, [runId, node.id, node.kind, finished]);

  const rate = async (value: number) => {
    setRating(true);
    setRateError(null);
    try {
      onRated(await runsIpc.rateNode(runId, node.id, value));
    } catch (e) {
      setRateError(describeError(e).message);
    } finally {
      setRating(false);
    }
  };

  const streamed = live ?? "";
  const text = stored ?? streamed.slice(-PANEL_TAIL);
  const hidden = stored === null ? dropped + Math.max(0, streamed.length - PANEL_TAIL) : 0;
  return (
    <div className="card node-panel" id="run-node-panel" data-node={node.id} data-state={state}>
      <div className="card-title-row">
        <h2>
          Node <span className="mono">{node.id}</span>
        </h2>
        <StatePill word={nodeWord(state)} />
        {node.rung != null && <span className="muted small">rung {node.rung}</span>}
        <span className="grow" />
        <span className="muted small">
          {formatCost(node.costUsd)} · {formatTokens(node.tokensIn, node.tokensOut)}
        </span>
      </div>
      <p className="node-task-full">{node.task}</p>
      {node.error && (
        <p className="error small" id="run-node-error">
          {errorText(node.error.message)}
        </p>
      )}

      <Facts node={node} state={state} />

      {node.kind === "text" && (
        <>
          <h3>Output</h3>
          {outputError && <p className="error small">{outputError}</p>}
          {hidden > 0 && (
            <p className="muted small">
              … {hidden.toLocaleString("en-US")} earlier characters not shown while it streams.
            </p>
          )}
          {inPane && stored === null ? (
            <p className="muted small" id="run-node-output" data-complete="false">
              Streaming: its text shows in the live pane above until it is stored.
            </p>
          ) : text !== "" || finished || state === "pending" || state === "running" ? (
            <pre className="node-output" id="run-node-output" data-complete={stored !== null}>
              {text || (state === "pending" ? "Waiting for its dependencies." : "")}
            </pre>
          ) : (
            <p className="muted small" id="run-node-output" data-complete="false">
              {state === "skipped" ? "Skipped: a node it needed did not finish." : "No output."}
            </p>
          )}
        </>
      )}
      {node.kind === "code" && node.attemptId && (
        <>
          <p className="small">
            Code node: its diff, gates and verification are on the{" "}
            <a id="run-node-review" href={reviewHash({ view: "attempt", id: node.attemptId })}>
              Review page
            </a>
            .
          </p>
          <NodeConfinement attemptId={node.attemptId} state={state} />
          {!inPane && text !== "" && (
            <>
              <h3>Worker output</h3>
              {hidden > 0 && (
                <p className="muted small">
                  … {hidden.toLocaleString("en-US")} earlier characters not shown; the Review page
                  has the whole transcript.
                </p>
              )}
              <pre className="node-output" id="run-node-worker-output">
                {text}
              </pre>
            </>
          )}
        </>
      )}

      {node.rateable && (
        <div className="rate-row" id="run-node-rate">
          <span className="small">Rate this output</span>
          <Stars
            value={node.rating}
            onRate={(v) => void rate(v)}
            disabled={rating}
            label={`Rate node ${node.id}`}
          />
          <span className="muted small">Ratings feed routing.</span>
          {rateError && <span className="error small">{rateError}</span>}
        </div>
      )}
    </div>
  );
});

/** The node's tries and context trace (unchanged while its text streams). */
const Facts = memo(function Facts({ node, state }: { node: NodeView; state: NodeState }) {
  return (
    <>
      <h3>Tries</h3>
      {node.attempts.length === 0 ? (
        <p className="muted small">
          {state === "pending" || state === "running" ? "Nothing tried yet." : "No call was made."}
        </p>
      ) : (
        <table className="tries" id="run-node-tries">
          <thead>
            <tr>
              <th>#</th>
              <th>Model / worker</th>
              <th>Rung</th>
              <th>State</th>
              <th className="num">Tokens</th>
              <th className="num">Cost</th>
              <th className="num">Time</th>
              <th>Why it failed</th>
            </tr>
          </thead>
          <tbody>
            {node.attempts.map((t) => (
              <tr key={t.n} data-try={t.n} data-state={t.state} data-purpose={t.purpose}>
                <td>
                  {t.n}
                  {t.purpose === "judge" && <span className="muted small"> judge</span>}
                </td>
                <td className="mono small who">
                  {t.worker ?? t.model}
                  {t.attemptId && (
                    <>
                      {" "}
                      <a href={reviewHash({ view: "attempt", id: t.attemptId })}>review →</a>
                    </>
                  )}
                </td>
                <td>{t.rung ?? "—"}</td>
                <td>{t.state}</td>
                <td className="num">{formatTokens(t.tokensIn, t.tokensOut)}</td>
                <td className="num">
                  {t.state === "reserved" ? (
                    <span className="muted">{formatCost(t.reservedUsd)} reserved</span>
                  ) : (
                    formatCost(t.costUsd)
                  )}
                </td>
                <td className="num">
                  {t.finishedMs != null && t.startedMs != null
                    ? formatElapsed(t.finishedMs - t.startedMs)
                    : "…"}
                </td>
                <td className="small">{t.signalText ?? t.error ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h3>Context it received</h3>
      {node.trace.items.length === 0 ? (
        <p className="muted small">Not started yet.</p>
      ) : (
        <ul className="trace" id="run-node-trace">
          {node.trace.items.map((item) => (
            <li key={item.source} data-source={item.source}>
              <span>{item.heading}</span>
              <span className="muted small">
                {item.chars.toLocaleString("en-US")} characters
                {item.truncated && (
                  <span className="warn-text">
                    {" "}
                    (cut from {item.totalChars.toLocaleString("en-US")})
                  </span>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      {node.usedInputs && (
        <p className="small" id="run-node-used">
          The merge says it used member{node.usedInputs.length === 1 ? "" : "s"}{" "}
          {node.usedInputs.join(", ")}.
        </p>
      )}
    </>
  );
});

/** How a code node's current attempt was confined, read from its review (again when the
 * node's state changes, so the denials of a finished worker show). */
function NodeConfinement({ attemptId, state }: { attemptId: string; state: NodeState }) {
  const [report, setReport] = useState<ConfinementReport | null | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new state is a reason to read again
  useEffect(() => {
    let current = true;
    reviewIpc
      .review(attemptId)
      .then((review) => {
        if (current) setReport(review.confinement);
      })
      .catch(() => {
        if (current) setReport(null);
      });
    return () => {
      current = false;
    };
  }, [attemptId, state]);
  if (report === undefined) return null;
  return (
    <div className="node-confinement" id="run-node-confinement">
      <ConfinementBadge mode={report?.mode} />
      <ConfinementPanel report={report} />
    </div>
  );
}
