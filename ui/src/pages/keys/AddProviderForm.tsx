import { type FormEvent, useState } from "react";
import { describeError, keysIpc, type ProviderKind, type ProviderStatus } from "../../ipc";
import { baseUrlProblem, idFromName, idProblem } from "./status";

interface AddProviderFormProps {
  /** Ids already in use (built-in and custom). */
  taken: readonly string[];
  onAdded: (provider: ProviderStatus) => Promise<void>;
  onCancel: () => void;
}

type CustomKind = Extract<ProviderKind, "openai-compatible" | "anthropic">;

/** Adds an OpenAI-compatible or Anthropic endpoint: name, id (from the name unless edited),
 * wire format and base URL. */
export function AddProviderForm({ taken, onAdded, onCancel }: AddProviderFormProps) {
  const [name, setName] = useState("");
  const [id, setId] = useState("");
  const [idEdited, setIdEdited] = useState(false);
  const [kind, setKind] = useState<CustomKind>("openai-compatible");
  const [baseUrl, setBaseUrl] = useState("");
  const [submitted, setSubmitted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const effectiveId = idEdited ? id : idFromName(name);
  const problems = {
    name: name.trim() === "" ? "Give it a name." : null,
    id: idProblem(effectiveId, taken),
    url: baseUrlProblem(baseUrl),
  };
  const valid = !problems.name && !problems.id && !problems.url;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!valid) {
      return;
    }
    setSaving(true);
    setError(null);
    try {
      const added = await keysIpc.addProvider({
        id: effectiveId,
        name: name.trim(),
        kind,
        baseUrl: baseUrl.trim(),
      });
      await onAdded(added);
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setSaving(false);
    }
  };

  const show = (problem: string | null) =>
    submitted && problem ? <p className="error small field-error">{problem}</p> : null;

  return (
    <form className="add-provider" id="add-provider-form" onSubmit={submit} noValidate>
      <div className="add-grid">
        <label htmlFor="provider-name">Name</label>
        <div>
          <input
            id="provider-name"
            type="text"
            value={name}
            placeholder="Lab vLLM"
            onChange={(e) => setName(e.target.value)}
            // biome-ignore lint/a11y/noAutofocus: the form opens because the user asked for it
            autoFocus
          />
          {show(problems.name)}
        </div>

        <label htmlFor="provider-id">Id</label>
        <div>
          <input
            id="provider-id"
            className="mono"
            type="text"
            value={effectiveId}
            placeholder="lab-vllm"
            spellCheck={false}
            onChange={(e) => {
              setIdEdited(true);
              setId(e.target.value);
            }}
          />
          <p className="muted small">
            Used in model references: <code>{effectiveId || "id"}:model-name</code>
          </p>
          {show(problems.id)}
        </div>

        <label htmlFor="provider-kind">Wire format</label>
        <div>
          <select
            id="provider-kind"
            value={kind}
            onChange={(e) => setKind(e.target.value as CustomKind)}
          >
            <option value="openai-compatible">OpenAI-compatible (chat completions)</option>
            <option value="anthropic">Anthropic (Messages API)</option>
          </select>
        </div>

        <label htmlFor="provider-url">Base URL</label>
        <div>
          <input
            id="provider-url"
            className="mono"
            type="text"
            value={baseUrl}
            placeholder="http://127.0.0.1:8000/v1"
            spellCheck={false}
            onChange={(e) => setBaseUrl(e.target.value)}
          />
          {show(problems.url)}
        </div>
      </div>
      {error && <p className="error banner">{error}</p>}
      <div className="form-actions">
        <button type="submit" className="primary" id="provider-add" disabled={saving}>
          {saving ? "Adding…" : "Add provider"}
        </button>
        <button type="button" className="ghost" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
        <span className="muted small">
          A key is optional; add one after if the endpoint wants it.
        </span>
      </div>
    </form>
  );
}
