import { useCallback, useEffect, useState } from "react";
import {
  type DoctorReport,
  describeError,
  ipc,
  ipcEvents,
  keysIpc,
  type ProviderStatus,
} from "../../ipc";
import { AddProviderForm } from "./AddProviderForm";
import { KeychainBanner } from "./KeychainBanner";
import { ProviderRow } from "./ProviderRow";
import { groupProviders, keychainProblem, summary } from "./status";
import "./keys.css";

/** Keys: provider keys in the OS keychain, base URLs, custom endpoints, and Test. */
export function KeysPage() {
  const [providers, setProviders] = useState<ProviderStatus[] | null>(null);
  const [doctor, setDoctor] = useState<DoctorReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [adding, setAdding] = useState(false);

  const reload = useCallback(async () => {
    try {
      setProviders(await keysIpc.providers());
      setError(null);
    } catch (e) {
      setError(describeError(e).message);
    }
  }, []);

  useEffect(() => {
    void reload();
    ipc
      .lastDoctorReport()
      .then((report) => report && setDoctor(report))
      .catch(() => {});
    const unlisten = ipcEvents.onDoctorUpdated(setDoctor);
    return () => {
      void unlisten.then((stop) => stop());
    };
  }, [reload]);

  const recheck = useCallback(async () => {
    setChecking(true);
    try {
      const [report] = await Promise.all([ipc.runDoctor(), reload()]);
      setDoctor(report);
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setChecking(false);
    }
  }, [reload]);

  const updated = useCallback((next: ProviderStatus) => {
    setProviders((list) => list?.map((p) => (p.id === next.id ? next : p)) ?? null);
  }, []);

  const problem = keychainProblem(providers, doctor);
  const groups = providers ? groupProviders(providers) : [];

  return (
    <section className="page keys form-page" id="keys-page">
      <header className="page-header keys-header">
        <div>
          <h1>Keys</h1>
          <p className="muted">
            Provider keys live in the OS keychain, never in Switchyard's files. Base URLs are
            settings, so any provider can point elsewhere.
          </p>
        </div>
        <span className="grow" />
        {providers && (
          <span className="muted small" id="keys-summary">
            {summary(providers)}
          </span>
        )}
        <button type="button" onClick={() => void recheck()} disabled={checking} id="keys-refresh">
          {checking ? "Checking…" : "Refresh"}
        </button>
      </header>

      {problem && (
        <KeychainBanner problem={problem} checking={checking} onCheck={() => void recheck()} />
      )}

      {error && (
        <div className="card error-card" id="keys-error">
          <p className="error">{error}</p>
          <button type="button" onClick={() => void reload()}>
            Try again
          </button>
        </div>
      )}

      {providers === null
        ? !error && <p className="muted">Reading provider settings and key status…</p>
        : groups.map((group) => (
            <div className="card provider-group" key={group.id} data-group={group.id}>
              <div className="card-title-row">
                <h2>{group.title}</h2>
                <span className="muted small">{group.description}</span>
                <span className="grow" />
                {group.id === "custom" && !adding && (
                  <button
                    type="button"
                    className="primary-ghost"
                    id="provider-add-open"
                    onClick={() => setAdding(true)}
                  >
                    Add endpoint
                  </button>
                )}
              </div>
              {group.providers.length > 0 && (
                <ul className="provider-list">
                  {group.providers.map((provider) => (
                    <ProviderRow
                      key={provider.id}
                      provider={provider}
                      onUpdated={updated}
                      onReload={reload}
                    />
                  ))}
                </ul>
              )}
              {group.id === "custom" &&
                (adding ? (
                  <AddProviderForm
                    taken={providers.map((p) => p.id)}
                    onAdded={async () => {
                      setAdding(false);
                      await reload();
                    }}
                    onCancel={() => setAdding(false)}
                  />
                ) : (
                  group.providers.length === 0 && (
                    <p className="muted small empty-custom">
                      None yet. Add a vLLM server, a proxy or a gateway that speaks the OpenAI or
                      Anthropic wire format.
                    </p>
                  )
                ))}
            </div>
          ))}
    </section>
  );
}
