// Form fields the launch forms share (Review → New task and Runs → New run): the repository
// with its base and the verification found there, the role preset, and whole or decimal
// numbers typed as text (parsed when the request is built).
import { useCallback, useRef, useState } from "react";
import { describeError, type RepoProbe, type RolePreset, reviewIpc } from "../ipc";

export interface RepoProbeState {
  probe: RepoProbe | null;
  error: string | null;
  /** Probes `path` (its base and verification); blank clears. */
  detect: (path: string) => Promise<void>;
  setError: (error: string | null) => void;
}

/** The repository's probe; `onFound` hears each one (to fill in verification commands). */
export function useRepoProbe(onFound: (path: string, probe: RepoProbe) => void): RepoProbeState {
  const [probe, setProbe] = useState<RepoProbe | null>(null);
  const [error, setError] = useState<string | null>(null);
  const found = useRef(onFound);
  found.current = onFound;
  const detect = useCallback(async (path: string) => {
    if (path.trim() === "") {
      setProbe(null);
      setError(null);
      return;
    }
    try {
      const probed = await reviewIpc.detectVerification(path.trim());
      setProbe(probed);
      setError(null);
      found.current(path, probed);
    } catch (e) {
      setProbe(null);
      setError(describeError(e).message);
    }
  }, []);
  return { probe, error, detect, setError };
}

/**
 * The repository: typed or chosen, probed on blur, its base shown (and uncommitted changes,
 * which the worker does not get). Ids: `<prefix>-repo`, `-repo-pick`, `-repo-error`, `-base`.
 */
export function RepoField({
  prefix,
  label,
  value,
  onChange,
  repo,
}: {
  prefix: string;
  label: string;
  value: string;
  onChange: (path: string) => void;
  repo: RepoProbeState;
}) {
  const { probe, error, detect, setError } = repo;
  const choose = async () => {
    try {
      const picked = await reviewIpc.pickRepoFolder();
      if (picked) {
        onChange(picked);
        await detect(picked);
      }
    } catch (e) {
      setError(describeError(e).message);
    }
  };
  return (
    <div className="form-row">
      <label htmlFor={`${prefix}-repo`}>{label}</label>
      <div className="inline">
        <input
          id={`${prefix}-repo`}
          type="text"
          value={value}
          placeholder="/path/to/a/git/repository"
          onChange={(e) => onChange(e.target.value)}
          onBlur={() => void detect(value)}
        />
        <button
          type="button"
          className="ghost"
          id={`${prefix}-repo-pick`}
          onClick={() => void choose()}
        >
          Choose…
        </button>
      </div>
      {error && (
        <p className="error small" id={`${prefix}-repo-error`}>
          {error}
        </p>
      )}
      {probe && (
        <p className="small" id={`${prefix}-base`}>
          Base: <code>{probe.branch ?? "detached HEAD"}</code> at{" "}
          <code>{probe.head.slice(0, 12)}</code>
          {probe.dirty.length > 0 && (
            <span className="warn-text" id={`${prefix}-dirty`}>
              {" "}
              · {probe.dirty.length} uncommitted{" "}
              {probe.dirty.length === 1 ? "change is" : "changes are"} not included: the worker
              starts from the commit.
            </span>
          )}
        </p>
      )}
    </div>
  );
}

/** The role preset (`""`: none). */
export function PresetSelect({
  id,
  value,
  presets,
  onChange,
}: {
  id: string;
  value: string;
  presets: readonly RolePreset[];
  onChange: (name: string) => void;
}) {
  return (
    <>
      <label htmlFor={id}>Role preset</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">None</option>
        {presets.map((p) => (
          <option key={p.name} value={p.name}>
            {p.name}
          </option>
        ))}
      </select>
    </>
  );
}

/** A number typed as text: whole (`numeric`) or with decimals (`decimal`). */
export function NumberField({
  id,
  label,
  value,
  placeholder,
  onChange,
  decimal = false,
  disabled = false,
}: {
  id: string;
  label: string;
  value: string;
  placeholder?: string;
  onChange: (text: string) => void;
  decimal?: boolean;
  disabled?: boolean;
}) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        inputMode={decimal ? "decimal" : "numeric"}
        value={value}
        placeholder={placeholder}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
      />
    </>
  );
}
