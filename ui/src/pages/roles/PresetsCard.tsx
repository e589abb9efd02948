import { type FormEvent, useEffect, useState } from "react";
import { describeError, type RoleBlock, type RolePreset, rolesIpc } from "../../ipc";
import { findBlock } from "./filter";
import { plural } from "./labels";
import { blockCount, presetFromSelection, type Selection, selectionFromPreset } from "./selection";

interface PresetsCardProps {
  presets: readonly RolePreset[];
  blocks: readonly RoleBlock[];
  selection: Selection;
  /** The preset last loaded or saved, if any. */
  active: string | null;
  onLoad: (preset: RolePreset) => void;
  /** Called after any change with the preset to mark active (or null), to reload the list. */
  onChanged: (active: string | null) => void;
}

/** Presets: save the current selection by name; load, rename, duplicate or delete one. */
export function PresetsCard({
  presets,
  blocks,
  selection,
  active,
  onLoad,
  onChanged,
}: PresetsCardProps) {
  const [name, setName] = useState(active ?? "");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<{ from: string; to: string } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);

  useEffect(() => {
    if (active !== null) {
      setName(active);
    }
  }, [active]);

  const run = async (action: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    try {
      onChanged(await action());
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => (await rolesIpc.savePreset(presetFromSelection(name, selection))).name);
  };

  const rename = (event: FormEvent) => {
    event.preventDefault();
    if (!renaming) {
      return;
    }
    const { from, to } = renaming;
    void run(async () => {
      const renamed = await rolesIpc.renamePreset(from, to);
      setRenaming(null);
      return active === from ? renamed.name : active;
    });
  };

  const exists = presets.some((p) => p.name === name.trim());

  return (
    <div className="card presets-card">
      <div className="card-title-row">
        <h2>Presets</h2>
        <span className="muted small">{plural(presets.length, "saved preset")}</span>
      </div>

      <form className="inline-form" onSubmit={save}>
        <input
          id="preset-name"
          type="text"
          placeholder="Name this selection…"
          aria-label="Preset name"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <button
          type="submit"
          id="preset-save"
          className="primary"
          disabled={busy || name.trim() === "" || blockCount(selection) === 0}
          title={blockCount(selection) === 0 ? "Choose at least one block first" : undefined}
        >
          {exists ? "Update preset" : "Save preset"}
        </button>
      </form>

      {error && (
        <p className="error small" id="preset-error">
          {error}
        </p>
      )}

      {presets.length === 0 ? (
        <p className="muted small empty-line" id="preset-empty">
          No presets yet. Pick blocks, name the selection and save it to reuse it here, in runs and
          with <code>switchyard roles compose --preset</code>.
        </p>
      ) : (
        <ul className="preset-list" id="preset-list">
          {presets.map((preset) => (
            <li
              key={preset.name}
              data-preset={preset.name}
              className={preset.name === active ? "active" : undefined}
            >
              {renaming?.from === preset.name ? (
                <form className="inline-form grow" onSubmit={rename}>
                  <input
                    type="text"
                    aria-label={`New name for ${preset.name}`}
                    data-field="rename"
                    value={renaming.to}
                    onChange={(e) => setRenaming({ from: preset.name, to: e.target.value })}
                    onKeyDown={(e) => e.key === "Escape" && setRenaming(null)}
                  />
                  <button
                    type="submit"
                    className="primary"
                    disabled={busy}
                    data-action="rename-save"
                  >
                    Rename
                  </button>
                  <button type="button" onClick={() => setRenaming(null)}>
                    Cancel
                  </button>
                </form>
              ) : (
                <>
                  <div className="preset-info">
                    <strong className="preset-name">{preset.name}</strong>
                    <span className="muted small preset-summary">{summary(preset, blocks)}</span>
                  </div>
                  {confirmDelete === preset.name ? (
                    <div className="row-actions confirm">
                      <span className="small">Delete?</span>
                      <button
                        type="button"
                        className="danger"
                        data-action="delete-confirm"
                        disabled={busy}
                        onClick={() => {
                          setConfirmDelete(null);
                          void run(async () => {
                            await rolesIpc.deletePreset(preset.name);
                            return active === preset.name ? null : active;
                          });
                        }}
                      >
                        Delete
                      </button>
                      <button type="button" onClick={() => setConfirmDelete(null)}>
                        Keep
                      </button>
                    </div>
                  ) : (
                    <div className="row-actions">
                      <button
                        type="button"
                        className="primary-ghost"
                        data-action="load"
                        onClick={() => onLoad(preset)}
                      >
                        Load
                      </button>
                      <button
                        type="button"
                        className="ghost"
                        data-action="rename"
                        onClick={() => setRenaming({ from: preset.name, to: preset.name })}
                      >
                        Rename
                      </button>
                      <button
                        type="button"
                        className="ghost"
                        data-action="duplicate"
                        disabled={busy}
                        onClick={() =>
                          void run(async () => {
                            await rolesIpc.duplicatePreset(preset.name);
                            return active;
                          })
                        }
                      >
                        Duplicate
                      </button>
                      <button
                        type="button"
                        className="ghost danger-text"
                        data-action="delete"
                        onClick={() => setConfirmDelete(preset.name)}
                      >
                        Delete
                      </button>
                    </div>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** `Backend engineer · Rust · PostgreSQL · Security` — the preset's blocks by title. */
export function summary(preset: RolePreset, blocks: readonly RoleBlock[]): string {
  const selection = selectionFromPreset(preset);
  const parts = [
    ...(selection.persona ? [["persona", selection.persona] as const] : []),
    ...selection.stack.map((id) => ["stack", id] as const),
    ...(selection.domain ? [["domain", selection.domain] as const] : []),
    ...(selection.format ? [["format", selection.format] as const] : []),
    ...selection.guardrails.map((id) => ["guardrail", id] as const),
  ].map(([kind, id]) => findBlock(blocks, kind, id)?.title ?? id);
  return parts.length > 0 ? parts.join(" · ") : "no blocks";
}
