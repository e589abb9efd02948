import { useState } from "react";
import {
  cliWorker,
  EXEC_PREFIX,
  MODEL_PREFIX,
  pickerMode,
  type WorkerOption,
  withCliModel,
} from "./workers";

/** One worker choice: an agent CLI, a custom command, or the model worker with a listed model
 * or one typed by id. `idPrefix` keeps ids unique per form (`task` on Review → New task). */
export function WorkerPicker({
  index,
  value,
  options,
  prefixes,
  onChange,
  onRemove,
  idPrefix = "task",
  emptyLabel = "Choose a worker…",
}: {
  index: number;
  value: string;
  options: WorkerOption[];
  prefixes: string[];
  onChange: (value: string) => void;
  onRemove?: () => void;
  idPrefix?: string;
  emptyLabel?: string;
}) {
  const [typing, setTyping] = useState(false);
  const mode = pickerMode(value, options, typing);
  const routed = cliWorker(value, options);
  const selectValue =
    mode === "exec"
      ? EXEC_PREFIX
      : mode === "modelId"
        ? MODEL_PREFIX
        : mode === "cli" && routed
          ? routed.cli
          : value;
  const cliModels = options.find((o) => o.value === routed?.cli)?.models ?? [];
  const hints = `${idPrefix}-model-hints-${index}`;
  return (
    <div className="inline worker-row" data-worker-row={index}>
      <select
        aria-label={`Worker ${index + 1}`}
        id={`${idPrefix}-worker-${index}`}
        value={selectValue}
        onChange={(e) => {
          setTyping(e.target.value === MODEL_PREFIX);
          onChange(e.target.value);
        }}
      >
        <option value="">{emptyLabel}</option>
        <optgroup label="Agent CLIs">
          {options
            .filter((o) => o.group === "cli")
            .map((o) => (
              <option key={o.value} value={o.value} disabled={o.missing}>
                {o.label}
              </option>
            ))}
        </optgroup>
        <option value={EXEC_PREFIX}>Custom command (exec:)</option>
        <optgroup label="Built-in model worker">
          <option value={MODEL_PREFIX}>Model by id (provider:model)…</option>
          {options
            .filter((o) => o.group === "model")
            .map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
        </optgroup>
      </select>
      {mode === "exec" && (
        <input
          aria-label={`Command for worker ${index + 1}`}
          id={`${idPrefix}-exec-${index}`}
          placeholder="./scripts/agent.sh"
          value={value.slice(EXEC_PREFIX.length)}
          onChange={(e) => onChange(`${EXEC_PREFIX}${e.target.value}`)}
        />
      )}
      {mode === "cli" && routed && (
        <>
          <input
            aria-label={`Model for worker ${index + 1}`}
            id={`${idPrefix}-cli-model-${index}`}
            className="mono"
            list={`${hints}-cli`}
            placeholder="the CLI's default model"
            title="The model the CLI is told to use (cheapest first); empty: its own default"
            value={routed.model}
            onChange={(e) => onChange(withCliModel(routed.cli, e.target.value))}
          />
          <datalist id={`${hints}-cli`}>
            {cliModels.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </>
      )}
      {mode === "modelId" && (
        <>
          <input
            aria-label={`Model id for worker ${index + 1}`}
            id={`${idPrefix}-model-${index}`}
            className="mono"
            list={hints}
            placeholder={`${prefixes[0] ?? "ollama:"}model-name`}
            value={value.slice(MODEL_PREFIX.length)}
            onChange={(e) => onChange(`${MODEL_PREFIX}${e.target.value}`)}
          />
          <datalist id={hints}>
            {prefixes.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </>
      )}
      {onRemove && (
        <button
          type="button"
          className="ghost"
          aria-label={`Remove worker ${index + 1}`}
          onClick={onRemove}
        >
          ×
        </button>
      )}
    </div>
  );
}
