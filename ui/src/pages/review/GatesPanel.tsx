import type { AttemptReview, CommandVerification, GateResult } from "../../ipc";
import { formatBytes } from "./diff/model";
import { formatElapsed, gateDetail, gateTitle } from "./format";

/**
 * Switchyard's verdicts: the diff hash, every gate with its evidence, and the verification it
 * ran itself. What the worker claimed is not here on purpose.
 */
export function GatesPanel({ review }: { review: AttemptReview }) {
  const { diff, gates, verification } = review;
  const failed = gates.filter((g) => !g.passed).length;
  const missing = review.gatesNotRun;
  const live = review.summary.live;
  return (
    <section className="card gates-panel" id="gates-panel" aria-label="Gates">
      <div className="card-title-row">
        <h2>Gates</h2>
        <span className="grow" />
        {gates.length === 0 ? (
          <span className="pill">{live ? "not run yet" : "not run"}</span>
        ) : failed === 0 && missing.length > 0 ? (
          <span className="pill warn" id="gates-verdict">
            {gates.length} passed, {missing.length} not run
          </span>
        ) : failed === 0 ? (
          <span className="pill ok" id="gates-verdict">
            all {gates.length} passed
          </span>
        ) : (
          <span className="pill fail" id="gates-verdict">
            {failed} of {gates.length} blocked
          </span>
        )}
      </div>
      {diff && (
        <p className="small gate-hash">
          Diff SHA-256 <code id="diff-sha256">{diff.sha256}</code>{" "}
          <span className="muted">
            ({formatBytes(diff.patchBytes ?? 0)} patch against <code>{diff.base.slice(0, 12)}</code>
            )
          </span>
        </p>
      )}
      {gates.length === 0 && (
        <p className="muted small" id="gates-none">
          {live
            ? "Switchyard runs its gates and your verification commands when the worker stops."
            : "The attempt stopped before Switchyard's gates ran."}
        </p>
      )}
      <ul className="gate-list">
        {gates.map((gate) => (
          <GateRow key={gate.name} gate={gate} title={gateTitle(review, gate.name)} />
        ))}
        {gates.length > 0 &&
          missing.map((name) => (
            <li key={name} className="gate not-run" data-gate={name} data-passed="not-run">
              <span className="dot" aria-hidden="true" />
              <strong>{gateTitle(review, name)}</strong>
              <span className="gate-detail muted">not run: the attempt stopped before it</span>
            </li>
          ))}
      </ul>
      {verification && (
        <div className="verification" id="verification-log">
          <h3>
            Switchyard's verification{" "}
            <span className={`pill ${verification.passed ? "ok" : "fail"}`}>
              {verification.passed ? "passed" : "failed"}
            </span>{" "}
            <span className="muted small">{formatElapsed(verification.durationMs)}</span>
          </h3>
          {verification.commands.length === 0 && (
            <p className="muted small">No verification commands were configured.</p>
          )}
          {verification.commands.map((command, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the record's order is fixed; a command may repeat
            <CommandLog key={`${i}:${command.command}`} command={command} open={!command.passed} />
          ))}
        </div>
      )}
    </section>
  );
}

function GateRow({ gate, title }: { gate: GateResult; title: string }) {
  return (
    <li
      className={`gate ${gate.passed ? "passed" : "blocked"}`}
      data-gate={gate.name}
      data-passed={gate.passed}
    >
      <span className={`dot ${gate.passed ? "ok" : "fail"}`} aria-hidden="true" />
      <strong>{title}</strong>
      <span className="sr-only">{gate.passed ? "passed" : "blocked"}</span>
      <span className="gate-detail">{gateDetail(gate)}</span>
      {gate.evidence.length > 0 && (
        <ul className="evidence">
          {gate.evidence.map((f, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: findings are a fixed list and may repeat
            <li key={`${i}:${f.path}:${f.line ?? ""}`}>
              {f.path !== "" && (
                <>
                  <code>
                    {f.path}
                    {f.line != null ? `:${f.line}` : ""}
                  </code>{" "}
                </>
              )}
              {f.message}
              {f.rule && <span className="muted"> ({f.rule})</span>}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function CommandLog({ command, open }: { command: CommandVerification; open: boolean }) {
  const outcome =
    command.outcome === "timedOut"
      ? "timed out"
      : command.outcome === "spawnFailed"
        ? "could not start"
        : command.outcome === "canceled"
          ? "canceled"
          : `exit ${command.exitCode ?? "?"}`;
  const counts = command.counts
    .map(
      (c) => `${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ""}`,
    )
    .join("; ");
  return (
    <details
      className="verify-command"
      open={open}
      data-command={command.command}
      data-passed={command.passed}
    >
      <summary>
        <span className={`dot ${command.passed ? "ok" : "fail"}`} aria-hidden="true" />
        <code>{command.command}</code> <span className="muted">{outcome}</span>
        {counts && <span className="verify-counts"> · {counts}</span>}
        <span className="muted"> · {formatElapsed(command.durationMs)}</span>
      </summary>
      {command.error && <p className="error small">{command.error}</p>}
      <pre className="log-tail">{command.logTail || "(no output)"}</pre>
      <p className="muted small">
        Whole log {formatBytes(command.logBytes ?? 0)}, SHA-256{" "}
        <code>{command.logSha256.slice(0, 16)}…</code>
        {(command.logBytes ?? 0) > command.logTail.length && " (the end is shown)"}
      </p>
    </details>
  );
}
