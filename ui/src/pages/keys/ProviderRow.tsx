import { useState } from "react";
import { describeError, keysIpc, type ProviderStatus } from "../../ipc";
import { KeyForm } from "./KeyForm";
import {
  canTest,
  KIND_LABEL,
  keyHolder,
  hasStoredKey as keyIsStored,
  statusBadge,
  type TestLine,
  takesKey,
  testLine,
  urlOverridden,
} from "./status";
import { UrlForm } from "./UrlForm";

type Mode = "idle" | "key" | "url" | "confirm-delete" | "confirm-remove";

type TestState = { state: "running" } | { state: "done"; line: TestLine } | null;

interface ProviderRowProps {
  provider: ProviderStatus;
  /** A command returned the provider's new status. */
  onUpdated: (provider: ProviderStatus) => void;
  /** Something changed that needs the whole list again (a deleted key, a removed provider). */
  onReload: () => Promise<void>;
}

/** One provider: status badge, base URL, and the key, Test, URL and remove actions. */
export function ProviderRow({ provider, onUpdated, onReload }: ProviderRowProps) {
  const [mode, setMode] = useState<Mode>("idle");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [test, setTest] = useState<TestState>(null);
  const [moveNote, setMoveNote] = useState<string | null>(null);
  const badge = statusBadge(provider);
  const hasStoredKey = keyIsStored(provider.key);
  const holder = keyHolder(provider.key);
  const keychainDown = provider.key.state === "unavailable";

  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  const saveKey = (key: string) =>
    act(async () => {
      onUpdated(await keysIpc.setKey(provider.id, key));
      setTest(null);
      setMoveNote(null);
      setMode("idle");
    });

  const saveUrl = (url: string | null) =>
    act(async () => {
      onUpdated(await keysIpc.setBaseUrl(provider.id, url));
      setTest(null);
      setMode("idle");
    });

  const deleteKey = () =>
    act(async () => {
      await keysIpc.deleteKey(provider.id);
      setTest(null);
      setMode("idle");
      await onReload();
    });

  const remove = () =>
    act(async () => {
      await keysIpc.removeProvider(provider.id);
      await onReload();
    });

  // The page only asks Rust to ask the user: the confirmation is a native dialog raised by
  // Rust, which the page can neither show nor answer.
  const confirmMove = () =>
    act(async () => {
      setMoveNote(null);
      const updated = await keysIpc.confirmKeyOrigin(provider.id);
      onUpdated(updated);
      setTest(null);
      if (updated.key.state === "originMismatch") {
        setMoveNote(`Not moved: the key stays with ${updated.key.origin} and is not sent here.`);
      }
    });

  const runTest = async () => {
    setTest({ state: "running" });
    setError(null);
    try {
      setTest({ state: "done", line: testLine(await keysIpc.test(provider.id)) });
    } catch (e) {
      setTest({ state: "done", line: { ok: false, text: describeError(e).message } });
    }
  };

  const testable = canTest(provider);
  return (
    <li className="provider" data-provider={provider.id} data-kind={provider.kind}>
      <div className="provider-main">
        <div className="provider-title">
          <strong className="provider-name">{provider.name}</strong>
          <span className="provider-tag">{KIND_LABEL[provider.kind]}</span>
          {provider.custom && <span className="provider-tag">custom</span>}
        </div>
        <div className="provider-meta">
          <span className="mono small provider-id">{provider.id}</span>
          <span className="meta-sep" aria-hidden="true">
            ·
          </span>
          <span className="mono small base-url" title={provider.baseUrl}>
            {provider.baseUrl}
          </span>
          {urlOverridden(provider) && <span className="provider-tag accent">custom URL</span>}
          {holder && (
            <span className={`small key-origin${holder.mismatch ? " warn-text" : " muted"}`}>
              key held for <span className="mono">{holder.origin}</span>
              {holder.mismatch && (
                <>
                  {" "}
                  · not sent to <span className="mono">{holder.mismatch}</span>
                </>
              )}
            </span>
          )}
          {provider.key.state === "originMismatch" && provider.key.variable && (
            <span className="small warn-text key-origin">
              <code>{provider.key.variable}</code> goes only to{" "}
              <span className="mono">{provider.key.origin}</span> or this machine
            </span>
          )}
          {provider.envVar && (provider.key.state === "missing" || keychainDown) && (
            <span className="muted small env-hint">
              or set <code>{provider.envVar}</code>
            </span>
          )}
        </div>
      </div>

      <span className={`status-badge ${badge.tone} key-status`} title={badge.title}>
        <span className={`dot ${badge.tone}`} aria-hidden="true" />
        {badge.label}
      </span>

      <div className="provider-actions">
        {takesKey(provider) && (
          <button
            type="button"
            className={hasStoredKey ? "key-add" : "primary-ghost key-add"}
            onClick={() => setMode(mode === "key" ? "idle" : "key")}
            disabled={busy || keychainDown}
            title={keychainDown ? "No keychain to store it in (see above)" : undefined}
          >
            {hasStoredKey ? "Replace key" : "Add key"}
          </button>
        )}
        {holder?.mismatch && (
          <button
            type="button"
            className="primary-ghost key-move"
            onClick={() => void confirmMove()}
            disabled={busy}
            title={`Asks you, in a system dialog, whether to send this key to ${holder.mismatch}`}
          >
            Move key here…
          </button>
        )}
        <button
          type="button"
          className="key-test"
          onClick={() => void runTest()}
          disabled={!testable || test?.state === "running"}
          title={
            testable
              ? "Request the provider's model list"
              : holder?.mismatch
                ? "The key is held for another address; move it or store a key for this one"
                : "Add a key first"
          }
        >
          {test?.state === "running" ? "Testing…" : "Test"}
        </button>
        <button
          type="button"
          className="ghost url-edit"
          onClick={() => setMode(mode === "url" ? "idle" : "url")}
          disabled={busy}
        >
          Edit URL
        </button>
        {hasStoredKey && (
          <button
            type="button"
            className="ghost danger-text key-delete"
            onClick={() => setMode("confirm-delete")}
            disabled={busy}
          >
            Delete key
          </button>
        )}
        {provider.custom && (
          <button
            type="button"
            className="ghost danger-text provider-remove"
            onClick={() => setMode("confirm-remove")}
            disabled={busy}
          >
            Remove
          </button>
        )}
      </div>

      {(mode !== "idle" || test || error || moveNote) && (
        <div className="provider-detail">
          {mode === "key" && (
            <KeyForm
              providerId={provider.id}
              providerName={provider.name}
              origin={provider.origin}
              replacing={hasStoredKey}
              onSave={saveKey}
              onCancel={() => setMode("idle")}
            />
          )}
          {mode === "url" && (
            <UrlForm provider={provider} onSave={saveUrl} onCancel={() => setMode("idle")} />
          )}
          {mode === "confirm-delete" && (
            <div className="confirm" role="alert">
              <span>
                Delete the {provider.name} key from the keychain?
                {provider.envVar && ` ${provider.envVar} still applies if it is set.`}
              </span>
              <button
                type="button"
                className="danger confirm-delete"
                onClick={() => void deleteKey()}
                disabled={busy}
              >
                Delete
              </button>
              <button type="button" className="ghost" onClick={() => setMode("idle")}>
                Cancel
              </button>
            </div>
          )}
          {mode === "confirm-remove" && (
            <div className="confirm" role="alert">
              <span>Remove {provider.name} and its stored key?</span>
              <button
                type="button"
                className="danger confirm-remove"
                onClick={() => void remove()}
                disabled={busy}
              >
                Remove
              </button>
              <button type="button" className="ghost" onClick={() => setMode("idle")}>
                Cancel
              </button>
            </div>
          )}
          {test && (
            <p
              className={`test-result ${test.state === "running" ? "running" : test.line.ok ? "ok" : "fail"}`}
              aria-live="polite"
            >
              {test.state === "running" ? (
                <>
                  <span className="test-spinner" aria-hidden="true" /> Requesting the model list…
                </>
              ) : (
                <>
                  <span className={`dot ${test.line.ok ? "ok" : "fail"}`} aria-hidden="true" />
                  <span className="test-text">{test.line.text}</span>
                </>
              )}
            </p>
          )}
          {moveNote && <p className="muted small move-note">{moveNote}</p>}
          {error && <p className="error banner row-error">{error}</p>}
        </div>
      )}
    </li>
  );
}
