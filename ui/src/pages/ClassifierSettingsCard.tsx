import { useCallback, useEffect, useState } from "react";
import { type ClassifierSettings, describeError, ipc } from "../ipc";

/** Parses the threshold field: a confidence from 0 to 1, or `null` when it is not one. */
export function parseThreshold(text: string): number | null {
  const value = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(value) && value >= 0 && value <= 1 ? value : null;
}

/** Settings → Routing: ask a model for the category when the classifier is unsure. */
export function ClassifierSettingsCard() {
  const [saved, setSaved] = useState<ClassifierSettings | null>(null);
  const [assist, setAssist] = useState(false);
  const [threshold, setThreshold] = useState("");
  const [model, setModel] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const show = useCallback((settings: ClassifierSettings) => {
    setSaved(settings);
    setAssist(settings.assist);
    setThreshold(String(settings.threshold ?? ""));
    setModel(settings.model ?? "");
  }, []);

  useEffect(() => {
    ipc
      .classifierSettings()
      .then(show)
      .catch((e) => setError(describeError(e).message));
  }, [show]);

  const value = parseThreshold(threshold);
  const save = async () => {
    if (value === null) return;
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      show(
        await ipc.setClassifierSettings({
          assist,
          threshold: value,
          model: model.trim() === "" ? null : model.trim(),
        }),
      );
      setMessage("Saved.");
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card" id="classifier-settings">
      <h2>Routing</h2>
      <p className="muted small">
        The task classifier runs on this machine. When it is unsure, it can ask a small model for
        the category (one short call per task, cached; if no model answers, its own answer stands).
      </p>
      <label className="check-row">
        <input
          type="checkbox"
          id="classifier-assist"
          checked={assist}
          disabled={saved === null}
          onChange={(e) => setAssist(e.target.checked)}
        />
        Ask a model when the classifier is unsure
      </label>
      <div className="form-row">
        <label htmlFor="classifier-threshold">Unsure below confidence</label>
        <input
          id="classifier-threshold"
          type="number"
          min={0}
          max={1}
          step={0.05}
          value={threshold}
          disabled={saved === null}
          onChange={(e) => setThreshold(e.target.value)}
        />
        <label htmlFor="classifier-model">Model</label>
        <input
          id="classifier-model"
          type="text"
          placeholder="chosen for you (a local model first)"
          value={model}
          disabled={saved === null}
          onChange={(e) => setModel(e.target.value)}
        />
        <button
          type="button"
          id="classifier-save"
          onClick={save}
          disabled={busy || saved === null || value === null}
        >
          {busy ? "Saving…" : "Save"}
        </button>
      </div>
      {value === null && saved !== null && (
        <p className="error small">The threshold is a confidence from 0 to 1.</p>
      )}
      {message && <p className="muted small">{message}</p>}
      {error && (
        <p className="error" id="classifier-error">
          {error}
        </p>
      )}
    </div>
  );
}
