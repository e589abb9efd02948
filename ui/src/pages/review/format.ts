// Small formatting rules shared by the Review page's views.
import type { AttemptReview, AttemptSummary, ErrorCode, GateName, GateResult } from "../../ipc";

/** What the page calls gate `name`: the title Rust gives it (`GateName::title`). */
export function gateTitle(review: Pick<AttemptReview, "gateTitles">, name: GateName): string {
  return review.gateTitles.find((t) => t.name === name)?.title ?? name;
}

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

/** Attempts waiting for the user first (newest first), then everything else (newest first). */
export function orderForReview(attempts: readonly AttemptSummary[]): {
  awaiting: AttemptSummary[];
  live: AttemptSummary[];
  recent: AttemptSummary[];
} {
  const newest = [...attempts].sort((a, b) => (b.createdMs ?? 0) - (a.createdMs ?? 0));
  return {
    awaiting: newest.filter((a) => a.state === "review"),
    live: newest.filter((a) => a.live),
    recent: newest.filter((a) => a.state !== "review" && !a.live),
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

/**
 * Why Approve is blocked, in a reader's words: the failed gates by name when any failed (the
 * engine's own sentence names only the first, by its internal name), else the engine's reason
 * (the worker changed nothing, the gates have not run). `null` when approve is possible.
 */
export function approveBlockedReason(review: AttemptReview): string | null {
  if (review.canApprove) return null;
  const failed = review.gates.filter((g) => !g.passed).map((g) => gateTitle(review, g.name));
  if (failed.length > 0) {
    const which =
      failed.length === 1
        ? `the ${failed[0]} gate failed`
        : `${failed.length} gates failed (${failed.join(", ")})`;
    return `Approve is blocked: ${which}. Request changes for another try, or reject the attempt.`;
  }
  const reason = review.approveBlocked?.trim().replace(/\.$/, "");
  return reason ? `Approve is blocked: ${reason}.` : "Approve is blocked.";
}

const FAILURE_TITLE: Partial<Record<ErrorCode, string>> = {
  workerFailed: "The worker failed",
  providerAuth: "The provider refused the worker's key",
  providerUnreachable: "The worker could not reach its provider",
  workerMisconfigured: "The worker CLI is not set up to run here",
  confinementUnavailable: "No sandbox can confine the worker",
  timeout: "The worker ran out of time",
  canceled: "Canceled",
  gateFailed: "A gate failed",
  lockedPath: "A locked path was changed",
  conflict: "The change conflicts with your branch",
  changed: "The worktree changed after verification",
  missingCredential: "A provider key is missing",
  keyOriginMismatch: "The provider key is for another address",
  insecureOrigin: "The provider address is not secure",
  keychain: "The keychain could not be read",
  provider: "The model provider failed",
  invalidInput: "The task could not start",
  notFound: "Something it needs is gone",
  busy: "Busy",
  io: "A file could not be read or written",
  database: "The database failed",
  internal: "Switchyard failed",
};

/** The heading an attempt's failure is shown under, in words rather than its code. */
export function failureTitle(code: ErrorCode): string {
  return FAILURE_TITLE[code] ?? "The attempt failed";
}

/**
 * A gate's detail without the engine's leading `blocked: ` (the page already marks the gate
 * blocked beside it; the CLI's plain-text output keeps it).
 */
export function gateDetail(gate: GateResult): string {
  return gate.detail.replace(/^blocked:\s*/, "");
}

/**
 * The engine's message under a failure's heading, or `null` when it only repeats the heading
 * or the code (a canceled attempt's message is "canceled").
 */
export function failureDetail(error: { code: ErrorCode; message: string }): string | null {
  const message = error.message.trim();
  const plain = (text: string) => text.toLowerCase().replace(/[^a-z]/g, "");
  if (
    message === "" ||
    plain(message) === plain(error.code) ||
    plain(message) === plain(failureTitle(error.code))
  ) {
    return null;
  }
  return message;
}
