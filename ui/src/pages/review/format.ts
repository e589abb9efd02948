// Small formatting rules shared by the Review page's views.
import type { AttemptState, AttemptSummary } from "../../ipc";

/** `42 s`, `3 min 05 s`, `1 h 02 min`. */
export function formatElapsed(ms: number | null | undefined): string {
  if (ms == null || ms < 0) {
    return "—";
  }
  const s = Math.floor(ms / 1000);
  if (s < 60) {
    return `${s} s`;
  }
  const m = Math.floor(s / 60);
  if (m < 60) {
    return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  }
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/** `$0.0123`, `$1.20`; `—` when unknown. `estimated` adds a `~`. */
export function formatCost(usd: number | null | undefined, estimated = false): string {
  if (usd == null) {
    return "—";
  }
  const text = usd < 0.1 ? usd.toFixed(4) : usd.toFixed(2);
  return `${estimated ? "~" : ""}$${text}`;
}

const LIVE: readonly AttemptState[] = ["queued", "preparing", "running", "verifying"];

/** The attempt is still being worked on (worker or gates). */
export function isLive(state: AttemptState): boolean {
  return LIVE.includes(state);
}

/** The pill colour for a state. */
export function stateTone(state: AttemptState): "ok" | "warn" | "fail" | "" {
  switch (state) {
    case "review":
    case "approved":
    case "integrated":
      return "ok";
    case "failed":
    case "rejected":
      return "fail";
    case "interrupted":
    case "canceled":
      return "warn";
    default:
      return "";
  }
}

/** Attempts waiting for the user first (newest first), then everything else (newest first). */
export function orderForReview(attempts: readonly AttemptSummary[]): {
  awaiting: AttemptSummary[];
  live: AttemptSummary[];
  recent: AttemptSummary[];
} {
  const newest = [...attempts].sort((a, b) => (b.createdMs ?? 0) - (a.createdMs ?? 0));
  return {
    awaiting: newest.filter((a) => a.state === "review"),
    live: newest.filter((a) => isLive(a.state)),
    recent: newest.filter((a) => a.state !== "review" && !isLive(a.state)),
  };
}

/** The first line of a task, cut to `max` characters. */
export function taskTitle(task: string, max = 90): string {
  const first = task.trim().split("\n")[0] ?? "";
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** `3 min ago`, `2 h ago`, or a date. `now` is passed in so tests are stable. */
export function ago(ms: number | null, now: number): string {
  if (ms == null) {
    return "—";
  }
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) {
    return "just now";
  }
  if (s < 3600) {
    return `${Math.floor(s / 60)} min ago`;
  }
  if (s < 86400) {
    return `${Math.floor(s / 3600)} h ago`;
  }
  return new Date(ms).toISOString().slice(0, 10);
}

/** The commit message approve starts from: the task's first line. */
export function defaultCommitMessage(task: string): string {
  return taskTitle(task, 72);
}
