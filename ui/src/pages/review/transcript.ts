// The attempt log as a reader wants it: streamed text pieces joined, a tool call's start and
// end shown as one line, the latest usage kept aside.
import type {
  AttemptLogEntry,
  AttemptState,
  Denial,
  GateResult,
  ToolAction,
  Usage,
} from "../../ipc";

export type TranscriptItem =
  | { kind: "state"; seq: number; state: AttemptState; note: string | null }
  | { kind: "text"; seq: number; text: string }
  | { kind: "thinking"; seq: number; text: string }
  | {
      kind: "tool";
      seq: number;
      id: string | null;
      tool: string;
      action: ToolAction;
      status: string;
    }
  | { kind: "error"; seq: number; message: string }
  | { kind: "final"; seq: number; ok: boolean; summary: string | null }
  | { kind: "started"; seq: number; model: string | null }
  | { kind: "gate"; seq: number; result: GateResult }
  | { kind: "denied"; seq: number; denial: Denial }
  | { kind: "raw"; seq: number; line: string };

export interface Transcript {
  items: TranscriptItem[];
  usage: Usage | null;
  lastSeq: number;
}

/** Folds log entries (in seq order, duplicates ignored) into transcript items. */
export function buildTranscript(entries: readonly AttemptLogEntry[]): Transcript {
  const items: TranscriptItem[] = [];
  const tools = new Map<string, number>();
  let usage: Usage | null = null;
  let lastSeq = 0;
  const seen = new Set<number>();
  for (const { seq, entry } of [...entries].sort((a, b) => a.seq - b.seq)) {
    if (seen.has(seq)) continue;
    seen.add(seq);
    lastSeq = Math.max(lastSeq, seq);
    if (entry.type === "state") {
      items.push({ kind: "state", seq, state: entry.state, note: entry.note });
      continue;
    }
    if (entry.type === "gate") {
      items.push({ kind: "gate", seq, result: entry.result });
      continue;
    }
    if (entry.type === "denied") {
      items.push({ kind: "denied", seq, denial: entry.denial });
      continue;
    }
    const event = entry.event;
    switch (event.kind) {
      case "assistantText": {
        const last = items[items.length - 1];
        if (event.delta && last?.kind === "text") {
          last.text += event.text;
        } else {
          items.push({ kind: "text", seq, text: event.text });
        }
        break;
      }
      case "thinking":
        items.push({ kind: "thinking", seq, text: event.text });
        break;
      case "toolUse": {
        const at = event.id != null ? tools.get(event.id) : undefined;
        const existing = at != null ? items[at] : undefined;
        if (existing?.kind === "tool") {
          existing.status = event.status;
          existing.action = event.action;
        } else {
          if (event.id != null) tools.set(event.id, items.length);
          items.push({
            kind: "tool",
            seq,
            id: event.id,
            tool: event.tool,
            action: event.action,
            status: event.status,
          });
        }
        break;
      }
      case "usage": {
        const { kind: _kind, ...rest } = event;
        usage = rest;
        break;
      }
      case "error":
        items.push({ kind: "error", seq, message: event.message });
        break;
      case "final":
        items.push({ kind: "final", seq, ok: event.ok, summary: event.summary });
        break;
      case "started":
        items.push({ kind: "started", seq, model: event.model });
        break;
      case "raw":
        items.push({ kind: "raw", seq, line: event.line });
        break;
    }
  }
  return { items, usage, lastSeq };
}

/** One line for a tool call: what it touched. */
export function describeAction(action: ToolAction): string {
  switch (action.type) {
    case "fileRead":
      return `read ${action.path}`;
    case "fileEdit":
      return `edited ${action.path}`;
    case "command":
      return action.exitCode != null
        ? `ran ${action.command} (exit ${action.exitCode})`
        : `ran ${action.command}`;
    case "search":
      return action.query ? `searched ${action.query}` : "searched";
    default:
      return "";
  }
}
