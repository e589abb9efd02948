import { useCallback, useEffect, useState } from "react";
import {
  type AppInfo,
  type CheckStatus,
  type DoctorReport,
  describeError,
  ipc,
  ipcEvents,
} from "../ipc";
import { ShortcutsTable } from "../keys/ShortcutsTable";
import { AgentClisCard } from "./AgentClisCard";
import { AgentPreferencesCard } from "./AgentPreferencesCard";
import { AppearanceCard } from "./AppearanceCard";
import { AgentConnectCard } from "./agents/AgentConnectCard";
import { ClassifierSettingsCard } from "./ClassifierSettingsCard";
import { ConfinementCard } from "./ConfinementCard";
import { FirstRunChecklist } from "./FirstRunChecklist";
import { LearningCard } from "./LearningCard";
import { RunDefaultsCard } from "./RunDefaultsCard";
import { WorktreesCard } from "./WorktreesCard";

const STATUS_LABEL: Record<CheckStatus, string> = { ok: "OK", warn: "Warning", fail: "Failed" };

/** Settings: where data lives, the database schema, the app version, the classifier's
 * model-assisted fallback, the run defaults, the agent CLIs, worktree disk usage and retention, and the doctor
 * report. */
export function Settings({ info }: { info: AppInfo | null }) {
  const [report, setReport] = useState<DoctorReport | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = useCallback(async () => {
    setRunning(true);
    setError(null);
    try {
      setReport(await ipc.runDoctor());
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setRunning(false);
    }
  }, []);

  useEffect(() => {
    void run();
    const unlisten = ipcEvents.onDoctorUpdated(setReport);
    return () => {
      void unlisten.then((stop) => stop());
    };
  }, [run]);

  return (
    <section className="page settings">
      <header className="page-header">
        <h1>Settings</h1>
        <p className="muted">Where Switchyard keeps its data, and whether this machine is ready.</p>
      </header>

      <div className="card">
        <h2>Installation</h2>
        <dl className="facts" id="app-info">
          <dt>Version</dt>
          <dd id="info-version">{info?.version ?? "…"}</dd>
          <dt>Data directory</dt>
          <dd id="info-datadir" className="mono">
            {info?.dataDir ?? "…"}
          </dd>
          <dt>Database</dt>
          <dd id="info-database" className="mono">
            {info?.databasePath ?? "…"}
          </dd>
          <dt>Schema version</dt>
          <dd id="info-schema">
            {info ? `${info.schemaVersion} (${info.migrationsApplied} migrations applied)` : "…"}
          </dd>
        </dl>
      </div>

      <FirstRunChecklist placement="settings" />

      <AppearanceCard />

      <ClassifierSettingsCard />
      <LearningCard />
      <AgentPreferencesCard />

      <RunDefaultsCard />

      <AgentClisCard />

      <ConfinementCard />

      <WorktreesCard />

      <AgentConnectCard />

      <div className="card" id="keyboard-shortcuts">
        <h2>Keyboard shortcuts</h2>
        <p className="muted small">
          Press <kbd>?</kbd> anywhere to see these again.
        </p>
        <ShortcutsTable />
      </div>

      <div className="card" id="doctor">
        <div className="card-title-row">
          <h2>Doctor</h2>
          {report && (
            <span className={`pill ${report.overall}`} id="doctor-overall">
              {STATUS_LABEL[report.overall]}
            </span>
          )}
          <span className="grow" />
          <button type="button" id="doctor-run" onClick={run} disabled={running}>
            {running ? "Checking…" : "Run checks again"}
          </button>
        </div>
        {error && (
          <p className="error" id="doctor-error">
            {error}
          </p>
        )}
        {report ? (
          <>
            <table className="checks" id="doctor-checks">
              <tbody>
                {report.checks.map((check) => (
                  <tr key={check.id} data-check={check.id} data-status={check.status}>
                    <td>
                      <span className={`dot ${check.status}`} title={STATUS_LABEL[check.status]} />
                    </td>
                    <th scope="row">{check.title}</th>
                    <td className="detail">{check.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div className="subgrid">
              <div>
                <h3>Worker CLIs</h3>
                <p className="muted small" id="doctor-workers">
                  {report.workerSummary}
                </p>
                <ul className="chips">
                  {report.workerClis.map((w) => (
                    <li key={w.name} className={w.installed ? "on" : "off"} title={w.detail}>
                      {w.name}
                    </li>
                  ))}
                </ul>
              </div>
              <div>
                <h3>Local model servers</h3>
                <ul className="endpoints" id="doctor-endpoints">
                  {report.localEndpoints.map((e) => (
                    <li key={e.id}>
                      <span className={`dot ${e.reachable ? "ok" : "warn"}`} />
                      <strong>{e.name}</strong> <span className="mono small">{e.url}</span>
                      <span className="muted small">
                        {" "}
                        {e.reachable ? `${e.modelCount ?? 0} models` : (e.error ?? "not reachable")}
                      </span>
                    </li>
                  ))}
                </ul>
              </div>
            </div>
            <p className="muted small">
              Git: {report.gitVersion ?? "not found"} · checked{" "}
              {new Date(report.generatedAt).toLocaleString()}
            </p>
          </>
        ) : (
          !error && <p className="muted">Running checks…</p>
        )}
      </div>
    </section>
  );
}
