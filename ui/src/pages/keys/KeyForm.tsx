import { type FormEvent, useEffect, useRef, useState } from "react";

interface KeyFormProps {
  providerId: string;
  providerName: string;
  /** The origin the key will be bound to: it is sent there and nowhere else. */
  origin: string | null;
  replacing: boolean;
  /** Receives the key once; the field is already empty when this is called. */
  onSave: (key: string) => Promise<void>;
  onCancel: () => void;
}

/** A masked paste field for one key. The key never enters React state: the input is
 * uncontrolled, read once on save and emptied before the save goes out. */
export function KeyForm({
  providerId,
  providerName,
  origin,
  replacing,
  onSave,
  onCancel,
}: KeyFormProps) {
  const input = useRef<HTMLInputElement>(null);
  const [filled, setFilled] = useState(false);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    input.current?.focus();
    const field = input.current;
    return () => {
      if (field) {
        field.value = "";
      }
    };
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const field = input.current;
    if (!field || field.value.trim() === "") {
      return;
    }
    const key = field.value;
    field.value = "";
    setFilled(false);
    setSaving(true);
    try {
      await onSave(key);
    } finally {
      setSaving(false);
    }
  };

  const fieldId = `key-input-${providerId}`;
  return (
    <form className="key-form" onSubmit={submit}>
      <label htmlFor={fieldId} className="sr-only">
        {replacing ? "New" : ""} {providerName} key
      </label>
      <input
        ref={input}
        id={fieldId}
        className="key-input"
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder={`Paste the ${providerName} key`}
        onInput={(e) => setFilled(e.currentTarget.value.trim() !== "")}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            onCancel();
          }
        }}
        disabled={saving}
      />
      <button type="submit" className="primary key-save" disabled={!filled || saving}>
        {saving ? "Saving…" : replacing ? "Replace key" : "Save key"}
      </button>
      <button type="button" className="ghost" onClick={onCancel} disabled={saving}>
        Cancel
      </button>
      <p className="muted small form-hint">
        Goes straight to the OS keychain. Switchyard never shows it again, only its last 4
        characters.
        {origin && (
          <>
            {" "}
            It is sent only to <span className="mono key-form-origin">{origin}</span>.
          </>
        )}
      </p>
    </form>
  );
}
