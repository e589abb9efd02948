import { useEffect, useState } from "react";
import { type ConfinementSupport, describeError, ipc } from "../ipc";

/**
 * Settings → Workers: what confines workers on this machine (bubblewrap, socat for the
 * provider-only network) and "Allow unconfined workers" for machines without a sandbox.
 */
export function ConfinementCard() {
  const [support, setSupport] = useState<ConfinementSupport | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    ipc
      .confinementSupport()
      .then(setSupport)
      .catch((e) => setError(describeError(e).message));
  }, []);

  const toggle = async (allowed: boolean) => {
    setBusy(true);
    setError(null);
    try {
      setSupport(await ipc.setAllowUnconfined(allowed));
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  const tone = !support
    ? ""
    : support.bwrap && support.socat
      ? "ok"
      : support.bwrap
        ? "warn"
        : "fail";
  return (
    <div className="card" id="confinement">
      <div className="card-title-row">
        <h2>Workers: confinement</h2>
        <span className="grow" />
        {support && (
          <span className={`pill ${tone}`} id="confinement-mode" data-mode={support.mode}>
            {support.bwrap ? "sandboxed" : support.allowUnconfined ? "unconfined" : "blocked"}
          </span>
        )}
      </div>
      <p className="muted small">
        Every worker and verification command runs in a bubblewrap sandbox: only its worktree and a
        private temp folder are writable, your repository's git directory and your home are
        read-only, and it reaches no host but its provider (an <code>exec:</code> worker and
        verification reach none unless a run allows it).
      </p>
      {support && (
        <dl className="facts">
          <dt>bubblewrap</dt>
          <dd id="confinement-bwrap">
            {support.bwrap ? `works (${support.bwrapVersion ?? "version unknown"})` : "unavailable"}
          </dd>
          <dt>socat</dt>
          <dd id="confinement-socat">{support.socat ? "found" : "missing"}</dd>
          <dt>Now</dt>
          <dd id="confinement-detail">{support.detail}</dd>
        </dl>
      )}
      <div className="form-row">
        <label className="check">
          <input
            type="checkbox"
            id="confinement-allow-unconfined"
            checked={support?.allowUnconfined ?? false}
            disabled={support === null || busy}
            onChange={(e) => void toggle(e.target.checked)}
          />{" "}
          Allow unconfined workers where no sandbox is available (they run as you and can change
          anything you can)
        </label>
      </div>
      {error && <p className="error">{error}</p>}
    </div>
  );
}
