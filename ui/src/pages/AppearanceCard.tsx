import { useEffect, useState } from "react";
import { describeError, ipc, type Theme } from "../ipc";
import { applyTheme } from "../theme";

const THEMES: readonly [Theme, string][] = [
  ["system", "System"],
  ["light", "Light"],
  ["dark", "Dark"],
];

/** Settings → Appearance: light, dark, or the system's, stored by Rust. */
export function AppearanceCard() {
  const [theme, setTheme] = useState<Theme | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    ipc.uiPrefs().then(
      (prefs) => setTheme(prefs.theme),
      (e: unknown) => setError(describeError(e).message),
    );
  }, []);
  const choose = async (next: Theme) => {
    try {
      const stored = await ipc.setTheme(next);
      setTheme(stored.theme);
      applyTheme(stored.theme);
      setError(null);
    } catch (e) {
      setError(describeError(e).message);
    }
  };
  return (
    <div className="card" id="appearance">
      <h2>Appearance</h2>
      <fieldset className="segmented" aria-label="Theme">
        {THEMES.map(([id, label]) => (
          <button
            key={id}
            type="button"
            className={theme === id ? "active" : undefined}
            aria-pressed={theme === id}
            data-theme-choice={id}
            disabled={theme === null}
            onClick={() => void choose(id)}
          >
            {label}
          </button>
        ))}
      </fieldset>
      {error && <p className="error small">{error}</p>}
    </div>
  );
}
