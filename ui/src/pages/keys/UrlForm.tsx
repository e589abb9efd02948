import { type FormEvent, useState } from "react";
import type { ProviderStatus } from "../../ipc";
import { baseUrlProblem } from "./status";

interface UrlFormProps {
  provider: ProviderStatus;
  /** `null` goes back to the built-in default. */
  onSave: (url: string | null) => Promise<void>;
  onCancel: () => void;
}

/** Edits a provider's base URL (a setting, not a secret). */
export function UrlForm({ provider, onSave, onCancel }: UrlFormProps) {
  const [url, setUrl] = useState(provider.baseUrl);
  const [saving, setSaving] = useState(false);
  const [touched, setTouched] = useState(false);
  const problem = baseUrlProblem(url);

  const save = async (value: string | null) => {
    setSaving(true);
    try {
      await onSave(value);
    } finally {
      setSaving(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!problem) {
      void save(url.trim());
    }
  };

  const fieldId = `url-input-${provider.id}`;
  return (
    <form className="url-form" onSubmit={submit}>
      <label htmlFor={fieldId} className="sr-only">
        {provider.name} base URL
      </label>
      <input
        id={fieldId}
        className="url-input mono"
        type="text"
        spellCheck={false}
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        onBlur={() => setTouched(true)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            onCancel();
          }
        }}
        aria-invalid={touched && problem !== null}
        disabled={saving}
        // biome-ignore lint/a11y/noAutofocus: the field opens because the user asked to edit it
        autoFocus
      />
      <button type="submit" className="primary url-save" disabled={saving || problem !== null}>
        Save
      </button>
      {provider.defaultBaseUrl !== null && provider.baseUrl !== provider.defaultBaseUrl && (
        <button
          type="button"
          className="url-reset"
          onClick={() => void save(null)}
          disabled={saving}
          title={provider.defaultBaseUrl}
        >
          Reset to default
        </button>
      )}
      <button type="button" className="ghost" onClick={onCancel} disabled={saving}>
        Cancel
      </button>
      {touched && problem && <p className="error small form-hint">{problem}</p>}
    </form>
  );
}
