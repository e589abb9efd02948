import { useCallback, useEffect, useState } from "react";
import { describeError, type RunDefaults, runsIpc } from "../ipc";

/** The form's text for each default; numbers are checked before saving (and again by Rust). */
export interface DefaultsForm {
  maxParallelRuns: string;
  maxParallelNodes: string;
  nodeTimeoutS: string;
  codeNodeTimeoutS: string;
  runTimeoutS: string;
  maxUsd: string;
  cliReservationUsd: string;
  baselineModel: string;
}

export function formOf(defaults: RunDefaults): DefaultsForm {
  const l = defaults.limits;
  return {
    maxParallelRuns: String(defaults.maxParallelRuns),
    maxParallelNodes: String(l.maxParallelNodes),
    nodeTimeoutS: String(l.nodeTimeoutS),
    codeNodeTimeoutS: String(l.codeNodeTimeoutS),
    runTimeoutS: String(l.runTimeoutS),
    maxUsd: String(l.maxUsd ?? ""),
    cliReservationUsd: String(l.cliReservationUsd ?? ""),
    baselineModel: defaults.baselineModel ?? "",
  };
}

/**
 * The defaults to save, or the first field that is not a number of the right kind. Limits
 * the form does not show (the output cap) keep their stored value.
 */
export function defaultsOf(
  form: DefaultsForm,
  saved: RunDefaults,
): { defaults: RunDefaults } | { problem: string } {
  const whole = (text: string, what: string): number | string => {
    const t = text.trim();
    return /^[1-9][0-9]*$/.test(t) ? Number(t) : `${what} is a whole number of at least 1.`;
  };
  const dollars = (text: string, what: string): number | string => {
    const t = text.trim().replace(/^\$/, "");
    return /^[0-9]*\.?[0-9]+$/.test(t) ? Number(t) : `${what} is a number of dollars.`;
  };
  const values = {
    maxParallelRuns: whole(form.maxParallelRuns, "Max parallel runs"),
    maxParallelNodes: whole(form.maxParallelNodes, "Max parallel nodes"),
    nodeTimeoutS: whole(form.nodeTimeoutS, "The text node timeout"),
    codeNodeTimeoutS: whole(form.codeNodeTimeoutS, "The code node timeout"),
    runTimeoutS: whole(form.runTimeoutS, "The run timeout"),
    maxUsd: dollars(form.maxUsd, "The USD cap"),
    cliReservationUsd: dollars(form.cliReservationUsd, "The CLI worker reservation"),
  };
  const problem = Object.values(values).find((v): v is string => typeof v === "string");
  if (problem) return { problem };
  const n = values as Record<keyof typeof values, number>;
  return {
    defaults: {
      maxParallelRuns: n.maxParallelRuns,
      limits: {
        ...saved.limits,
        maxParallelNodes: n.maxParallelNodes,
        nodeTimeoutS: n.nodeTimeoutS,
        codeNodeTimeoutS: n.codeNodeTimeoutS,
        runTimeoutS: n.runTimeoutS,
        maxUsd: n.maxUsd,
        cliReservationUsd: n.cliReservationUsd,
      },
      baselineModel: form.baselineModel.trim() === "" ? null : form.baselineModel.trim(),
      defaultBaseline: saved.defaultBaseline,
    },
  };
}

const FIELDS: readonly { key: keyof DefaultsForm; label: string; id: string }[] = [
  { key: "maxParallelRuns", label: "Max parallel runs", id: "runs-max-runs" },
  { key: "maxParallelNodes", label: "Max parallel nodes per run", id: "runs-max-nodes" },
  { key: "nodeTimeoutS", label: "Text node timeout (s)", id: "runs-node-timeout" },
  { key: "codeNodeTimeoutS", label: "Code node timeout (s)", id: "runs-code-timeout" },
  { key: "runTimeoutS", label: "Run timeout (s)", id: "runs-run-timeout" },
  { key: "maxUsd", label: "Max USD per run", id: "runs-max-usd" },
  { key: "cliReservationUsd", label: "CLI reservation (USD)", id: "runs-cli-reservation" },
];

/** Settings → Runs: what every new run starts with unless its launch form overrides it. */
export function RunDefaultsCard() {
  const [saved, setSaved] = useState<RunDefaults | null>(null);
  const [form, setForm] = useState<DefaultsForm | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const show = useCallback((defaults: RunDefaults) => {
    setSaved(defaults);
    setForm(formOf(defaults));
  }, []);

  useEffect(() => {
    runsIpc
      .defaults()
      .then(show)
      .catch((e) => setError(describeError(e).message));
  }, [show]);

  const checked = form && saved ? defaultsOf(form, saved) : null;
  const problem = checked && "problem" in checked ? checked.problem : null;

  const save = async () => {
    if (!checked || !("defaults" in checked)) return;
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      show(await runsIpc.setDefaults(checked.defaults));
      setMessage("Saved. New runs start with these.");
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card form-page" id="run-defaults">
      <h2>Runs</h2>
      <p className="muted small">
        Defaults for every new run; the launch form and <code>switchyard run</code> can override
        them per run. The USD cap is never exceeded: each call reserves its worst case first.
      </p>
      {form && (
        <>
          <div className="form-grid defaults-grid">
            {FIELDS.map((f) => (
              <div className="form-row" key={f.key}>
                <label htmlFor={f.id}>{f.label}</label>
                <input
                  id={f.id}
                  type="text"
                  inputMode="decimal"
                  value={form[f.key]}
                  onChange={(e) => setForm({ ...form, [f.key]: e.target.value })}
                />
              </div>
            ))}
          </div>
          <div className="form-row">
            <label htmlFor="runs-baseline">Savings baseline model</label>
            <input
              id="runs-baseline"
              type="text"
              className="mono"
              value={form.baselineModel}
              placeholder={
                saved?.defaultBaseline
                  ? `the top general model: ${saved.defaultBaseline}`
                  : "the catalog's top general model"
              }
              onChange={(e) => setForm({ ...form, baselineModel: e.target.value })}
            />
          </div>
          <div className="form-actions">
            <button
              type="button"
              id="runs-defaults-save"
              onClick={() => void save()}
              disabled={busy || problem !== null}
            >
              {busy ? "Saving…" : "Save"}
            </button>
            {problem && <span className="error small">{problem}</span>}
            {message && <span className="muted small">{message}</span>}
          </div>
        </>
      )}
      {error && (
        <p className="error" id="run-defaults-error">
          {error}
        </p>
      )}
    </div>
  );
}
