// How the attempt's worker and verification were confined, and what the sandbox refused.
import type { ConfinementMode, ConfinementReport, Denial } from "../../ipc";

const MODE_TITLE: Record<ConfinementMode, string> = {
  bwrap: "Sandboxed (bubblewrap)",
  landlock: "Sandboxed (Landlock, files only)",
  none: "Unconfined",
};

const NETWORK_TITLE = {
  "provider-only": "its provider only",
  none: "no network",
  open: "open network",
} as const;

const KIND_TITLE: Record<Denial["kind"], string> = {
  write: "write refused",
  connect: "connection refused",
  repository: "changed outside the worktree",
};

/** The badge in the attempt's header (and on run pages). */
export function ConfinementBadge({ mode }: { mode: ConfinementMode | null | undefined }) {
  if (!mode) return null;
  return (
    <span
      className={`pill ${mode === "none" ? "warn" : "ok"}`}
      id="attempt-confinement"
      data-mode={mode}
      title={MODE_TITLE[mode]}
    >
      {mode === "none" ? "unconfined" : "sandboxed"}
    </span>
  );
}

/** Settings of the sandbox and every denial, capped in the report. */
export function ConfinementPanel({ report }: { report: ConfinementReport | null }) {
  if (!report) {
    return (
      <section
        className="card confinement-panel"
        aria-label="Confinement"
        id="confinement-panel"
        data-mode="unknown"
      >
        <h2>Confinement</h2>
        <p className="muted small">
          Not recorded: this attempt has not started, or ran before Switchyard confined workers.
        </p>
      </section>
    );
  }
  const more = report.deniedMore;
  return (
    <section
      className="card confinement-panel"
      aria-label="Confinement"
      id="confinement-panel"
      data-mode={report.mode}
    >
      <h2>Confinement</h2>
      <p className="small">
        <strong>{MODE_TITLE[report.mode]}</strong> · {NETWORK_TITLE[report.network]}
        {report.allowed.length > 0 && (
          <>
            {" "}
            (<code>{report.allowed.join(", ")}</code>)
          </>
        )}
      </p>
      {report.mode === "none" ? (
        <p className="small warn-text">
          The worker ran as you, without a sandbox (allowed in Settings → Workers): it could write
          anywhere you can. The repository gate still checked your git directory and checkout.
        </p>
      ) : (
        <p className="muted small">
          Writable: the worktree, a private temp folder
          {report.writable.length > 2 ? " and the CLI's own state" : ""}. Everything else is
          read-only; your credential stores and session sockets are hidden.
        </p>
      )}
      {report.denied.length === 0 ? (
        <p className="muted small" id="confinement-denied-none">
          Nothing was refused.
        </p>
      ) : (
        <ul className="denials" id="confinement-denied">
          {report.denied.map((denial) => (
            <li key={`${denial.kind}:${denial.source}:${denial.target}`} data-kind={denial.kind}>
              <span className="denial-kind">{KIND_TITLE[denial.kind]}</span>
              {denial.source === "verification" ? " (verification)" : ""}:{" "}
              <code title={denial.detail}>{denial.target}</code>
            </li>
          ))}
          {more > 0 && <li className="muted">and {more} more</li>}
        </ul>
      )}
    </section>
  );
}
