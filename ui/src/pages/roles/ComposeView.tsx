import { useState } from "react";
import type { RoleBlock, RolePreset } from "../../ipc";
import { BlockPicker } from "./BlockPicker";
import { KINDS, plural } from "./labels";
import { PresetsCard } from "./PresetsCard";
import { PreviewPanel } from "./PreviewPanel";
import {
  applySuggestion,
  blockCount,
  deselect,
  EMPTY_SELECTION,
  isMulti,
  move,
  type Selection,
  select,
  selectedIds,
  selectionFromPreset,
} from "./selection";
import { useComposition } from "./useComposition";

interface ComposeViewProps {
  blocks: readonly RoleBlock[];
  presets: readonly RolePreset[];
  /** Bumped when block content changed, so the preview recomposes. */
  libraryVersion: number;
  reloadPresets: () => Promise<void>;
}

/** The composer: task and pickers on the left, the live preview on the right. */
export function ComposeView({ blocks, presets, libraryVersion, reloadPresets }: ComposeViewProps) {
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [task, setTask] = useState("");
  const [activePreset, setActivePreset] = useState<string | null>(null);
  const composition = useComposition(selection, task, libraryVersion);
  const count = blockCount(selection);

  const load = (preset: RolePreset) => {
    setSelection(selectionFromPreset(preset));
    setActivePreset(preset.name);
  };

  return (
    <div className="compose-grid">
      <div className="compose-left">
        <div className="card">
          <label className="field-label" htmlFor="role-task">
            Task
          </label>
          <textarea
            id="role-task"
            className="task-input"
            rows={4}
            placeholder="What should the model do? e.g. Add rate limiting to the login endpoint"
            value={task}
            onChange={(e) => setTask(e.target.value)}
          />
        </div>

        <div className="card pickers-card">
          <div className="card-title-row">
            <h2>Blocks</h2>
            <span className="muted small" id="role-block-count">
              {plural(count, "block")} chosen
            </span>
            <span className="grow" />
            <button
              type="button"
              className="ghost"
              id="role-clear"
              disabled={count === 0}
              onClick={() => {
                setSelection(EMPTY_SELECTION);
                setActivePreset(null);
              }}
            >
              Clear
            </button>
          </div>
          {KINDS.map((kind) => (
            <BlockPicker
              key={kind}
              kind={kind}
              blocks={blocks}
              selected={selectedIds(selection, kind)}
              onSelect={(id) => setSelection((s) => select(s, kind, id))}
              onRemove={(id) => setSelection((s) => deselect(s, kind, id))}
              onMove={
                isMulti(kind)
                  ? (id, delta) => setSelection((s) => move(s, kind, id, delta))
                  : undefined
              }
            />
          ))}
        </div>

        <PresetsCard
          presets={presets}
          blocks={blocks}
          selection={selection}
          active={activePreset}
          onLoad={load}
          onChanged={(active) => {
            setActivePreset(active);
            void reloadPresets();
          }}
        />
      </div>

      <div className="compose-right">
        <PreviewPanel
          composition={composition}
          onApplySuggestion={(warning) => setSelection((s) => applySuggestion(s, warning))}
        />
      </div>
    </div>
  );
}
