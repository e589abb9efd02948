import { useCallback, useEffect, useState } from "react";
import { describeError, ipc, type WorkerCli, type WorkerCliStatus } from "../ipc";

/** The honest line about isolation, shown wherever workers are configured. */
export const ISOLATION_NOTE =
  "Each CLI runs in a bubblewrap sandbox (see Workers: confinement): it writes only its " +
  "worktree, its own state and a private temp folder, reaches only its provider, and gets no " +
  "push rights and no keys but its own.";

/** Settings → Agent CLIs: each adapter installed (version, where) or missing, with a path field
 * that overrides the lookup on PATH and the login shell's PATH. */
export function AgentClisCard() {
  const [clis, setClis] = useState<WorkerCliStatus[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setClis(await ipc.listWorkerClis());
    } catch (e) {
      setError(describeError(e).message);
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const replace = (status: WorkerCliStatus) =>
    setClis((all) => (all ?? []).map((w) => (w.cli === status.cli ? status : w)));

  return (
    <div className="card" id="agent-clis">
      <div className="card-title-row">
        <h2>Agent CLIs</h2>
        <span className="grow" />
        <button type="button" id="agent-clis-refresh" onClick={() => void load()}>
          Look again
        </button>
      </div>
      <p className="muted small">
        Each CLI is looked for at the path set here (optional), else on Switchyard's PATH, else on
        your login shell's PATH.
      </p>
      <p className="small" id="isolation-note">
        {ISOLATION_NOTE}
      </p>
      {error && (
        <p className="error" id="agent-clis-error">
          {error}
        </p>
      )}
      {clis === null ? (
        !error && <p className="muted">Looking for agent CLIs…</p>
      ) : (
        <table className="checks" id="agent-clis-table">
          <tbody>
            {clis.map((w) => (
              <AgentCliRow key={w.cli} status={w} onChange={replace} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function AgentCliRow({
  status,
  onChange,
}: {
  status: WorkerCliStatus;
  onChange: (status: WorkerCliStatus) => void;
}) {
  const [path, setPath] = useState(status.configuredPath ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => setPath(status.configuredPath ?? ""), [status.configuredPath]);

  const apply = async (change: () => Promise<WorkerCliStatus>) => {
    setBusy(true);
    setError(null);
    try {
      onChange(await change());
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };
  const save = (cli: WorkerCli, value: string | null) => apply(() => ipc.setWorkerPath(cli, value));

  const dirty = path.trim() !== (status.configuredPath ?? "");
  return (
    <tr
      data-cli={status.cli}
      data-installed={status.installed ? "yes" : "no"}
      data-ready={status.ready ? "yes" : "no"}
    >
      <td>
        <span
          className={`dot ${status.ready ? "ok" : "warn"}`}
          title={status.ready ? "ready" : status.installed ? "not ready" : "missing"}
        />
      </td>
      <th scope="row">
        <span className="cli-name">
          {status.title}
          <code>{status.program}</code>
        </span>
      </th>
      <td className="detail">
        <span className="pill-text">
          {status.ready ? "ready" : status.installed ? "not ready" : "missing"}
        </span>{" "}
        <span className="muted small">{status.detail}</span>
        {status.installed && status.account !== "none" && status.accountDetail && (
          <div className="small cli-account">Calls its provider with {status.accountDetail}</div>
        )}
        {status.fix && !status.ready && <div className="small cli-fix">Fix: {status.fix}</div>}
        {(status.installed || status.ownAccount) && (
          <label className="small cli-own-account">
            <input
              type="checkbox"
              id={`cli-own-${status.cli}`}
              checked={status.ownAccount}
              disabled={busy}
              onChange={(e) => {
                const own = e.target.checked;
                void apply(() => ipc.setWorkerAccount(status.cli, own));
              }}
            />
            Use its own account (its login or subscription): Switchyard passes it no key and writes
            no configuration for it
          </label>
        )}
        <div className="form-row">
          <input
            type="text"
            className="mono"
            aria-label={`${status.name} path`}
            placeholder={`/path/to/${status.program}`}
            value={path}
            disabled={busy}
            onChange={(e) => setPath(e.target.value)}
          />
          <button
            type="button"
            disabled={busy || !dirty}
            onClick={() => void save(status.cli, path.trim() === "" ? null : path.trim())}
          >
            Save
          </button>
          {status.configuredPath !== null && (
            <button type="button" disabled={busy} onClick={() => void save(status.cli, null)}>
              Clear
            </button>
          )}
        </div>
        {error && <p className="error small">{error}</p>}
      </td>
    </tr>
  );
}
