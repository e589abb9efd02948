import { useEffect, useState } from "react";
import { type AppInfo, type CheckStatus, ipc, ipcEvents } from "../ipc";

const HEALTH_LABEL: Record<CheckStatus, string> = {
  ok: "healthy",
  warn: "warnings",
  fail: "problems",
};

/** The bottom bar: catalog snapshot date, data directory, doctor summary. */
export function StatusBar({ info }: { info: AppInfo | null }) {
  const [health, setHealth] = useState<CheckStatus | null>(null);

  useEffect(() => {
    // Subscribe first, then read the report that may already exist: no update is missed.
    const unlisten = ipcEvents.onDoctorUpdated((report) => setHealth(report.overall));
    void unlisten.then(() =>
      ipc
        .lastDoctorReport()
        .then((report) => report && setHealth((current) => current ?? report.overall))
        .catch(() => {}),
    );
    return () => {
      void unlisten.then((stop) => stop());
    };
  }, []);

  return (
    <footer className="statusbar" id="statusbar">
      <span id="status-catalog">
        Catalog: {info ? (info.catalogSnapshotDate ?? "no snapshot loaded") : "…"}
      </span>
      <span className="sep" />
      <span id="status-datadir" title={info?.dataDir}>
        Data: {info?.dataDir ?? "…"}
      </span>
      <span className="grow" />
      <a href="#/settings" id="status-health" className={`pill ${health ?? "pending"}`}>
        {health === null ? "checking…" : HEALTH_LABEL[health]}
      </a>
      <span>v{info?.version ?? "…"}</span>
    </footer>
  );
}
