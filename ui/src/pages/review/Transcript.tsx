import { useEffect, useRef } from "react";
import type { TranscriptItem, TranscriptUpdate, Usage } from "../../ipc";
import { formatCost, gateDetail } from "./format";

/** A transcript as the engine folds it: its items, and the latest usage the worker reported. */
export interface TranscriptState {
  items: TranscriptItem[];
  usage: Usage | null;
}

export const EMPTY_TRANSCRIPT: TranscriptState = { items: [], usage: null };

/** `state` with one update of the engine's feed applied (Rust folds; this only places it). */
export function applyTranscript(state: TranscriptState, update: TranscriptUpdate): TranscriptState {
  let items = state.items;
  if (update.index != null && update.item) {
    items = items.slice();
    items[update.index] = update.item;
  }
  return { items, usage: update.usage ?? state.usage };
}

/** What the worker said and did, as it reported it (shown, never trusted), plus its usage. */
export function Transcript({
  transcript,
  follow,
}: {
  transcript: TranscriptState;
  follow: boolean;
}) {
  const { items, usage } = transcript;
  const end = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (follow && items.length > 0) end.current?.scrollIntoView?.({ block: "nearest" });
  }, [follow, items.length]);
  return (
    <section className="card transcript" id="transcript" aria-label="Worker transcript">
      <div className="card-title-row">
        <h2>Worker transcript</h2>
        <span className="grow" />
        <UsageLine usage={usage} />
      </div>
      <p className="muted small">
        The worker's own account. Switchyard trusts only the diff it captured and the checks it ran.
      </p>
      {items.length === 0 ? (
        <p className="muted">Nothing yet.</p>
      ) : (
        <ol className="log" id="attempt-log">
          {items.map((item) => (
            <li key={item.seq} className={`log-${item.kind}`} data-seq={item.seq}>
              <ItemText item={item} />
            </li>
          ))}
          <li ref={end} className="log-end" aria-hidden="true" />
        </ol>
      )}
    </section>
  );
}

export function UsageLine({ usage }: { usage: Usage | null }) {
  if (!usage) {
    return <span className="muted small">no usage reported</span>;
  }
  return (
    <span className="small usage" id="usage">
      {usage.input.toLocaleString()} in
      {usage.cached ? ` (${usage.cached.toLocaleString()} cached)` : ""} ·{" "}
      {usage.output.toLocaleString()} out ·{" "}
      {usage.costUsd == null ? "cost unknown" : formatCost(usage.costUsd, usage.estimated)}
      {usage.estimated && usage.costUsd != null && <span className="muted"> estimated</span>}
    </span>
  );
}

const DENIAL_TITLE = {
  write: "Write refused:",
  connect: "Connection refused:",
  repository: "Put back:",
} as const;

function ItemText({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case "state":
      return (
        <span className="muted">
          → {item.state}
          {item.note && item.note !== item.state ? `: ${item.note}` : ""}
        </span>
      );
    case "text":
      return <span className="log-text">{item.text}</span>;
    case "thinking":
      return <span className="muted log-thinking">{item.text}</span>;
    case "tool":
      return (
        <span>
          <code>{item.tool}</code> {item.what}{" "}
          <span className={`tool-status ${item.status}`}>{item.status}</span>
        </span>
      );
    case "error":
      return <span className="error">{item.message}</span>;
    case "final":
      return (
        <span>
          Worker finished ({item.ok ? "says ok" : "says it failed"})
          {item.summary ? `: ${item.summary}` : ""}
        </span>
      );
    case "started":
      return <span className="muted">Session started{item.model ? ` (${item.model})` : ""}</span>;
    case "gate":
      return (
        <span>
          Gate <strong>{item.title}</strong>: {item.result.passed ? "passed" : "blocked"} —{" "}
          {gateDetail(item.result)}
        </span>
      );
    case "denied":
      return (
        <span className="log-denied">
          {DENIAL_TITLE[item.denial.kind]} <code>{item.denial.target}</code>
          {item.denial.source === "verification" ? " (verification)" : ""} — {item.denial.detail}
        </span>
      );
    case "raw":
      return <code className="log-raw">{item.line}</code>;
  }
}
