import { useState } from "react";
import { describeError, type RoleBlock, rolesIpc } from "../../ipc";
import { BlockEditor } from "./BlockEditor";
import { ImportExportCard } from "./ImportExportCard";
import { KIND_LABEL, KINDS, plural } from "./labels";

interface LibraryViewProps {
  blocks: readonly RoleBlock[];
  /** Reloads blocks and presets after a change. */
  onChanged: () => Promise<void>;
}

/** Custom blocks (list, add, edit, delete) and the roles file. */
export function LibraryView({ blocks, onChanged }: LibraryViewProps) {
  const [editing, setEditing] = useState<RoleBlock | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const custom = blocks.filter((b) => b.source === "custom");
  const builtinCount = blocks.length - custom.length;

  const remove = async (block: RoleBlock) => {
    setConfirmDelete(null);
    setError(null);
    try {
      await rolesIpc.deleteCustomBlock(block.id);
      if (editing?.id === block.id) setEditing(null);
      await onChanged();
    } catch (e) {
      setError(describeError(e).message);
    }
  };

  return (
    <div className="compose-grid">
      <div className="compose-left">
        <div className="card" id="custom-blocks">
          <div className="card-title-row">
            <h2>Custom blocks</h2>
            <span className="muted small">
              {plural(custom.length, "custom block")} · {builtinCount} built-in
            </span>
            <span className="grow" />
            <button
              type="button"
              className="ghost"
              id="block-new"
              onClick={() => setEditing(null)}
              disabled={editing === null}
            >
              New block
            </button>
          </div>
          {error && <p className="error small">{error}</p>}
          {custom.length === 0 ? (
            <div className="empty-state" id="custom-empty">
              <p className="empty-title">No custom blocks yet</p>
              <p className="muted">
                Write your own persona, stack entry, domain, format or guardrail — or start from a
                built-in one and adapt it. Custom blocks appear in the pickers with a “custom” badge
                and are stored with ids starting with <code>custom:</code>.
              </p>
            </div>
          ) : (
            KINDS.filter((kind) => custom.some((b) => b.kind === kind)).map((kind) => (
              <div key={kind} className="custom-group">
                <h3>{KIND_LABEL[kind].title}</h3>
                <ul className="custom-list">
                  {custom
                    .filter((b) => b.kind === kind)
                    .map((block) => (
                      <li
                        key={block.id}
                        data-block-id={block.id}
                        className={editing?.id === block.id ? "active" : undefined}
                      >
                        <div className="preset-info">
                          <strong>{block.title}</strong>
                          <span className="muted small">{block.description}</span>
                          <span className="mono muted small">{block.id}</span>
                        </div>
                        {confirmDelete === block.id ? (
                          <div className="row-actions confirm">
                            <span className="small">Delete?</span>
                            <button
                              type="button"
                              className="danger"
                              data-action="delete-confirm"
                              onClick={() => remove(block)}
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
                              className="ghost"
                              data-action="edit"
                              onClick={() => setEditing(block)}
                            >
                              Edit
                            </button>
                            <button
                              type="button"
                              className="ghost danger-text"
                              data-action="delete"
                              onClick={() => setConfirmDelete(block.id)}
                            >
                              Delete
                            </button>
                          </div>
                        )}
                      </li>
                    ))}
                </ul>
              </div>
            ))
          )}
        </div>
        <ImportExportCard onImported={() => void onChanged()} />
      </div>
      <div className="compose-right">
        <BlockEditor
          blocks={blocks}
          editing={editing}
          onSaved={(block) => {
            setEditing(editing ? block : null);
            void onChanged();
          }}
          onCancel={() => setEditing(null)}
        />
      </div>
    </div>
  );
}
