import { type FormEvent, useEffect, useState } from "react";
import {
  type BlockKind,
  describeError,
  type RoleBlock,
  rolesIpc,
  type StackGroup,
} from "../../ipc";
import { type BlockForm, emptyForm, formFromBlock, inputFromForm, missingField } from "./blockForm";
import { GROUP_TITLE } from "./filter";
import { capitalize, KIND_LABEL, KINDS } from "./labels";

interface BlockEditorProps {
  /** Every block, to offer built-ins as a starting point. */
  blocks: readonly RoleBlock[];
  /** The custom block being edited, or null to add a new one. */
  editing: RoleBlock | null;
  onSaved: (block: RoleBlock) => void;
  onCancel: () => void;
}

/** Adds or edits a custom block of any kind. */
export function BlockEditor({ blocks, editing, onSaved, onCancel }: BlockEditorProps) {
  const [form, setForm] = useState<BlockForm>(() =>
    editing ? formFromBlock(editing) : emptyForm(),
  );
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setForm(editing ? formFromBlock(editing) : emptyForm());
    setError(null);
  }, [editing]);

  const set = <K extends keyof BlockForm>(key: K, value: BlockForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  const builtins = blocks.filter((b) => b.kind === form.kind && b.source === "builtin");
  const missing = missingField(form);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const input = inputFromForm(form);
      const saved = editing
        ? await rolesIpc.updateCustomBlock(editing.id, input)
        : await rolesIpc.addCustomBlock(input);
      onSaved(saved);
      if (!editing) {
        setForm(emptyForm(form.kind));
      }
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card block-editor" id="block-editor" onSubmit={submit}>
      <div className="card-title-row">
        <h2>{editing ? "Edit custom block" : "New custom block"}</h2>
        {editing && <span className="mono muted">{editing.id}</span>}
      </div>

      <div className="form-grid">
        <label htmlFor="block-kind">Kind</label>
        <select
          id="block-kind"
          value={form.kind}
          onChange={(e) => set("kind", e.target.value as BlockKind)}
        >
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {capitalize(KIND_LABEL[kind].noun)}
            </option>
          ))}
        </select>

        {!editing && (
          <>
            <label htmlFor="block-base">Start from</label>
            <select
              id="block-base"
              value=""
              onChange={(e) => {
                const base = builtins.find((b) => b.id === e.target.value);
                if (base) setForm(formFromBlock(base, " (custom)"));
              }}
            >
              <option value="">Blank, or copy a built-in {KIND_LABEL[form.kind].noun}…</option>
              {builtins.map((b) => (
                <option key={b.id} value={b.id}>
                  {b.title}
                </option>
              ))}
            </select>
          </>
        )}

        <label htmlFor="block-title">Title</label>
        <input
          id="block-title"
          type="text"
          placeholder="e.g. Payments team rules"
          value={form.title}
          onChange={(e) => set("title", e.target.value)}
        />

        <label htmlFor="block-description">Description</label>
        <input
          id="block-description"
          type="text"
          placeholder="One line shown in the pickers"
          value={form.description}
          onChange={(e) => set("description", e.target.value)}
        />

        {form.kind === "stack" && (
          <>
            <label htmlFor="block-group">Group</label>
            <select
              id="block-group"
              value={form.group}
              onChange={(e) => set("group", e.target.value as StackGroup | "")}
            >
              <option value="">None</option>
              {(Object.keys(GROUP_TITLE) as StackGroup[]).map((g) => (
                <option key={g} value={g}>
                  {GROUP_TITLE[g]}
                </option>
              ))}
            </select>
          </>
        )}

        <label htmlFor="block-aliases">Aliases</label>
        <input
          id="block-aliases"
          type="text"
          placeholder="Other names, comma-separated (optional)"
          value={form.aliases}
          onChange={(e) => set("aliases", e.target.value)}
        />

        <label htmlFor="block-prompt">Prompt text</label>
        <textarea
          id="block-prompt"
          rows={9}
          placeholder="The exact text inserted into the composed prompt. Be concrete: what to do, what to avoid, what done means."
          value={form.prompt}
          onChange={(e) => set("prompt", e.target.value)}
        />
      </div>

      {error && (
        <p className="error small" id="block-error">
          {error}
        </p>
      )}

      <div className="form-actions">
        {missing && <span className="muted small">Add {missing} to save.</span>}
        <span className="grow" />
        {editing && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button
          type="submit"
          className="primary"
          id="block-save"
          disabled={busy || missing !== null}
        >
          {editing ? "Save changes" : "Add block"}
        </button>
      </div>
    </form>
  );
}
