import { useCallback, useEffect, useState } from "react";
import { describeError, ipc, type WorktreePrune, type WorktreeUsage } from "../ipc";

/** "1.5 GB"-style size (powers of 1024, one decimal above bytes). */
export function formatBytes(bytes: number | null): string {
  const value = bytes ?? 0;
  const units = ["B", "KB", "MB", "GB", "TB"];
  let size = value;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${size.toFixed(1)} ${units[unit]}`;
}

/** Parses the retention field: whole days from 0 to 3650, or `null`. */
export function parseRetention(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const days = Number(trimmed);
  return days <= 3650 ? days : null;
}

/** "Removed 2 worktrees and 1 log." for what one prune removed. */
export function describePrune(prune: WorktreePrune): string {
  const worktrees = prune.worktrees.length;
  const logs = prune.logs.length;
  if (worktrees === 0 && logs === 0) return "Nothing is older than the retention.";
  const parts = [`${worktrees} ${worktrees === 1 ? "worktree" : "worktrees"}`];
  if (logs > 0) parts.push(`${logs} ${logs === 1 ? "log" : "logs"}`);
  return `Removed ${parts.join(" and ")}.`;
}

/**
 * Settings → Worktrees: disk used by attempt worktrees, how long failed ones are kept, and
 * removing the old ones now (Switchyard also does it at every start).
 */
export function WorktreesCard() {
  const [usage, setUsage] = useState<WorktreeUsage | null>(null);
  const [days, setDays] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const show = useCallback((u: WorktreeUsage) => {
    setUsage(u);
    setDays(String(u.retentionDays));
  }, []);

  useEffect(() => {
    ipc
      .worktreeUsage()
      .then(show)
      .catch((e) => setError(describeError(e).message));
  }, [show]);

  const value = parseRetention(days);
  const save = async () => {
    if (value === null) return;
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      show(await ipc.setWorktreeRetention(value));
      setMessage("Saved.");
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  const prune = async () => {
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      const pruned = await ipc.pruneWorktrees();
      setUsage(pruned.usage);
      const problems =
        pruned.problems.length > 0 ? ` Not swept: ${pruned.problems.join("; ")}` : "";
      setMessage(`${describePrune(pruned)}${problems}`);
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card" id="worktrees">
      <h2>Worktrees</h2>
      <p className="muted small">
        Each attempt works in its own git worktree in Switchyard's data directory. Worktrees are
        removed after integrate or reject; those of failed, canceled or interrupted attempts are
        kept for the days below, so you can look at what the worker did, then removed at the next
        start. Attempts awaiting review always keep theirs.
      </p>
      {usage && (
        <dl className="facts">
          <dt>Disk used</dt>
          <dd id="worktrees-usage">
            {formatBytes(usage.bytes)} in {usage.worktrees}{" "}
            {usage.worktrees === 1 ? "worktree" : "worktrees"}
          </dd>
          <dt>Location</dt>
          <dd className="mono">{usage.path}</dd>
        </dl>
      )}
      <div className="form-row">
        <label htmlFor="worktrees-retention">Keep failed attempts' worktrees (days)</label>
        <input
          id="worktrees-retention"
          type="number"
          min={0}
          max={3650}
          step={1}
          value={days}
          disabled={usage === null || busy}
          onChange={(e) => setDays(e.target.value)}
        />
        <button
          type="button"
          id="worktrees-save"
          disabled={busy || value === null || value === usage?.retentionDays}
          onClick={() => void save()}
        >
          Save
        </button>
      </div>
      <div className="form-row">
        <button
          type="button"
          id="worktrees-prune"
          disabled={usage === null || busy}
          onClick={() => void prune()}
        >
          Remove old worktrees now
        </button>
      </div>
      {days !== "" && value === null && (
        <p className="error small">Enter whole days from 0 to 3650.</p>
      )}
      {message && <p className="muted small">{message}</p>}
      {error && (
        <p className="error" id="worktrees-error">
          {error}
        </p>
      )}
    </div>
  );
}
