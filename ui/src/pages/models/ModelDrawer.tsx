import { useEffect, useRef, useState } from "react";
import {
  type CatalogStatus,
  type Category,
  COMPARE_MODELS,
  catalogIpc,
  describeError,
  type ModelCard,
  type ModelDetail,
} from "../../ipc";
import {
  formatContext,
  formatPrice,
  formatSeconds,
  formatSpeed,
  TAG_LABEL,
  TIER_LABEL,
  UNKNOWN,
} from "./format";
import { MatchEditor } from "./MatchEditor";
import { loadMetricRegistry, type MetricRegistry } from "./metrics";
import { ScoreExplain } from "./ScoreExplain";
import { SourceBreakdown } from "./SourceBreakdown";

type Load =
  | { state: "loading" }
  | { state: "ready"; detail: ModelDetail; registry: MetricRegistry }
  | { state: "failed"; message: string };

export interface ModelDrawerProps {
  modelId: string;
  focus: Category | null;
  status: CatalogStatus | null;
  selected: readonly string[];
  onToggleSelect: (id: string) => void;
  onClose: () => void;
  /** A match edit changed the catalog. */
  onChanged: () => void;
}

function Facts({ card }: { card: ModelCard }) {
  return (
    <dl className="facts drawer-facts">
      <dt>Price per M tokens</dt>
      <dd>
        {formatPrice(card.pricing.promptPerM)} input · {formatPrice(card.pricing.completionPerM)}{" "}
        output · <strong>{formatPrice(card.blendedPerM)}</strong> blended (3:1)
      </dd>
      <dt>Context</dt>
      <dd>
        {formatContext(card.contextLength)}
        {card.contextLength ? ` (${card.contextLength.toLocaleString()} tokens)` : ""}
      </dd>
      <dt>Speed</dt>
      <dd>
        {formatSpeed(card.outputSpeed)} · first token {formatSeconds(card.ttftSeconds)}
      </dd>
      <dt>Modalities</dt>
      <dd>
        in: {card.inputModalities.join(", ") || UNKNOWN} · out:{" "}
        {card.outputModalities.join(", ") || UNKNOWN}
      </dd>
      {card.created && (
        <>
          <dt>Released</dt>
          <dd>{card.created}</dd>
        </>
      )}
      {card.huggingFaceId && (
        <>
          <dt>Hugging Face</dt>
          <dd className="mono">{card.huggingFaceId}</dd>
        </>
      )}
      <dt>Variants</dt>
      <dd>
        {card.variants.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="chips">
            {card.variants.map((v) => (
              <li key={v}>{v}</li>
            ))}
          </ul>
        )}
      </dd>
    </dl>
  );
}

/** The detail of one model, sliding in from the right; Escape or the backdrop closes it. */
export function ModelDrawer(props: ModelDrawerProps) {
  const { modelId, focus, status, selected, onToggleSelect, onClose, onChanged } = props;
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const panel = useRef<HTMLElement>(null);

  useEffect(() => {
    let current = true;
    setLoad({ state: "loading" });
    Promise.all([catalogIpc.getModel(modelId), loadMetricRegistry()])
      .then(([detail, registry]) => current && setLoad({ state: "ready", detail, registry }))
      .catch(
        (e: unknown) => current && setLoad({ state: "failed", message: describeError(e).message }),
      );
    return () => {
      current = false;
    };
  }, [modelId]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        onClose();
      }
    };
    document.addEventListener("keydown", onKey);
    panel.current?.focus();
    return () => document.removeEventListener("keydown", onKey);
  }, [onClose]);

  const card = load.state === "ready" ? load.detail.card : null;
  const checked = selected.includes(modelId);
  return (
    <div className="drawer-layer">
      <button
        type="button"
        className="drawer-backdrop"
        aria-label="Close details"
        onClick={onClose}
      />
      <aside
        className="drawer"
        id="model-drawer"
        data-model-id={modelId}
        data-state={load.state}
        aria-label="Model details"
        tabIndex={-1}
        ref={panel}
      >
        <header className="drawer-header">
          <div className="drawer-title">
            <h2>{card?.name ?? modelId}</h2>
            <p className="mono muted">{modelId}</p>
            {card && (
              <div className="drawer-badges">
                <span className="muted">{card.provider}</span>
                <span className={`tier tier-${card.tier}`}>{TIER_LABEL[card.tier]}</span>
                {card.tags.map((t) => (
                  <span key={t} className={`tag tag-${t}`}>
                    {TAG_LABEL[t]}
                  </span>
                ))}
              </div>
            )}
          </div>
          <div className="drawer-actions">
            <button
              type="button"
              disabled={!checked && selected.length >= COMPARE_MODELS.max}
              onClick={() => onToggleSelect(modelId)}
            >
              {checked ? "Remove from compare" : "Add to compare"}
            </button>
            <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </div>
        </header>
        <div className="drawer-body">
          {load.state === "loading" && <p className="muted">Loading…</p>}
          {load.state === "failed" && <p className="error">{load.message}</p>}
          {card && load.state === "ready" && (
            <>
              {card.description && <p className="description">{card.description}</p>}
              <Facts card={card} />
              <h3>Category scores — why this score</h3>
              <ScoreExplain
                breakdown={load.detail.breakdown}
                registry={load.registry}
                focus={focus}
              />
              <h3>Benchmarks by source</h3>
              <p className="muted small">
                Raw values as each source publishes them; normalized = clamp(50 + 20·z, 0, 100) over
                the catalog's models that have the metric.
              </p>
              <SourceBreakdown benchmarks={card.benchmarks} registry={load.registry} />
              <h3>Matched as</h3>
              <p className="muted small">
                The source records tied to this model and the rule that tied them. Corrections are
                stored and applied on every refresh.
              </p>
              <MatchEditor
                card={card}
                status={status}
                onDetail={(rebuilt) =>
                  setLoad({ state: "ready", detail: rebuilt, registry: load.registry })
                }
                onChanged={onChanged}
              />
            </>
          )}
        </div>
      </aside>
    </div>
  );
}
