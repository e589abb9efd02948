import { useCallback, useEffect, useState } from "react";
import { describeError, ipc, type LearningSettings } from "../ipc";
import { parseThreshold } from "./ClassifierSettingsCard";
import { formatShare } from "./models/format";
import { categoryLabel, outcomesText } from "./route/format";
import { LearningSummary } from "./route/LearningSummary";

/** Rows of the estimates table; the CLI lists them all. */
const MAX_ROWS = 12;

/** Settings → Routing learns: what picks and cascades learn from, the skip threshold, reset. */
export function LearningCard() {
  const [saved, setSaved] = useState<LearningSettings | null>(null);
  const [skip, setSkip] = useState("");
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const show = useCallback((settings: LearningSettings) => {
    setSaved(settings);
    setSkip(String(settings.skipBelow));
  }, []);

  useEffect(() => {
    ipc
      .learningSettings()
      .then(show)
      .catch((e) => setError(describeError(e).message));
  }, [show]);

  const act = async (what: () => Promise<LearningSettings>, done: string) => {
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      show(await what());
      setMessage(done);
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  const value = parseThreshold(skip);

  return (
    <div className="card" id="learning-settings">
      <h2>Routing learns</h2>
      <p className="muted small">
        Picks start from the benchmarks and move with what happened here: each finished attempt or
        run node whose verification, gates and your decision passed counts as a success for its
        model in the task's category, newer outcomes weighing more. Nothing leaves this machine.
      </p>
      {saved && (
        <p id="learning-count">
          Learning from <strong>{saved.outcomes}</strong> outcome{saved.outcomes === 1 ? "" : "s"}
          {saved.since ? ` since ${new Date(saved.since).toLocaleString()}` : ""}.
        </p>
      )}
      {saved && <LearningSummary savings={saved.savings} id="learning-savings" />}
      {saved && saved.estimates.length > 0 && (
        <table className="checks" id="learning-estimates">
          <caption className="muted small">What routing learned, most outcomes first</caption>
          <thead>
            <tr>
              <th scope="col">Category</th>
              <th scope="col">Model</th>
              <th scope="col">Outcomes</th>
              <th scope="col">Prior</th>
              <th scope="col">Estimate</th>
            </tr>
          </thead>
          <tbody>
            {saved.estimates.slice(0, MAX_ROWS).map((e) => (
              <tr key={`${e.category}/${e.model}`}>
                <td>{categoryLabel(e.category)}</td>
                <td className="mono">{e.model}</td>
                <td>{outcomesText(e.evidence)}</td>
                <td>{formatShare(e.evidence.prior)}</td>
                <td>{formatShare(e.evidence.estimate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {saved && saved.estimates.length > MAX_ROWS && (
        <p className="muted small">
          and {saved.estimates.length - MAX_ROWS} more (<code>switchyard outcomes learning</code>)
        </p>
      )}
      <div className="form-row">
        <label htmlFor="learning-skip">Cascades skip a rung estimated below</label>
        <input
          id="learning-skip"
          type="number"
          min={0}
          max={1}
          step={0.05}
          value={skip}
          disabled={saved === null}
          onChange={(e) => setSkip(e.target.value)}
        />
        <button
          type="button"
          id="learning-save"
          disabled={busy || saved === null || value === null}
          onClick={() => value !== null && act(() => ipc.setSkipBelow(value), "Saved.")}
        >
          Save
        </button>
      </div>
      {value === null && saved !== null && (
        <p className="error small">The threshold is an estimate from 0 to 1 (0: never skip).</p>
      )}
      {confirming ? (
        <div className="form-row" role="alertdialog" aria-label="Forget what routing learned">
          <span>Outcomes stay in the journal; they stop moving picks and cascades.</span>
          <button
            type="button"
            id="learning-reset-confirm"
            className="danger"
            disabled={busy}
            onClick={() =>
              act(() => ipc.resetLearning(), "Routing starts again from the benchmarks.")
            }
          >
            Forget
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </div>
      ) : (
        <button
          type="button"
          id="learning-reset"
          disabled={busy || saved === null}
          onClick={() => setConfirming(true)}
        >
          Forget what routing learned…
        </button>
      )}
      {message && <p className="muted small">{message}</p>}
      {error && (
        <p className="error" id="learning-error">
          {error}
        </p>
      )}
    </div>
  );
}
