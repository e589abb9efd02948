import { formatPrice, formatScore1, formatShare } from "../models/format";
import {
  assistNote,
  categoryLabel,
  evidence,
  modelLabel,
  reasonFacts,
  signalChips,
} from "./format";
import { ModelLink } from "./ModelLink";
import { Stars } from "./Stars";
import type { Classification, PickAnswer, RankedModel } from "./types";

/** The classifier's verdict: category, confidence, and the features that decided it. */
export function ClassificationLine({ classification }: { classification: Classification }) {
  const features = evidence(classification);
  const chips = signalChips(classification);
  const assisted = assistNote(classification);
  return (
    <div className="classification" id="route-classification">
      <span className="muted small">Classified as</span>
      <span
        className="pill category"
        data-category={classification.category}
        title={modelLabel(classification)}
      >
        {categoryLabel(classification.category)}
      </span>
      <span className="muted small">{formatShare(classification.confidence)} confident</span>
      {features.length > 0 ? (
        <span className="small evidence" id="route-evidence">
          <span className="muted">from </span>
          {features.map((f) => (
            <code
              key={f.label}
              className={f.named ? "cue" : undefined}
              title={`raised the score by ${f.weight}`}
            >
              {f.label} <span className="muted">{f.weight}</span>
            </code>
          ))}
        </span>
      ) : (
        <span className="muted small">nothing the classifier knows: a general task</span>
      )}
      {assisted && (
        <span className="muted small" id="route-assist">
          {assisted}
        </span>
      )}
      {chips.map((c) => (
        <span key={c} className="pill signal">
          {c}
        </span>
      ))}
    </div>
  );
}

function FactsGrid({ model }: { model: RankedModel }) {
  return (
    <dl className="reason-facts">
      {reasonFacts(model.reason, model.evidence).map((fact) => (
        <div key={fact.label} className={`fact ${fact.tone}`}>
          <dt>{fact.label}</dt>
          <dd>{fact.value}</dd>
        </div>
      ))}
    </dl>
  );
}

interface Props {
  answer: PickAnswer;
  rating: number | null;
  ratingBusy: boolean;
  onRate: (rating: number) => void;
}

/** The pick, why, how sure, and the runners-up. */
export function PickCard({ answer, rating, ratingBusy, onRate }: Props) {
  const { pick, classification } = answer;
  return (
    <div className="card pick-card" id="route-pick-card" data-model={pick.id}>
      <ClassificationLine classification={classification} />
      <div className="pick-head">
        <div>
          <span className="eyebrow">Pick</span>
          <h2 id="route-pick-name">
            <ModelLink id={pick.id} name={pick.name} />
          </h2>
          <span className="muted small mono">{pick.id}</span>
        </div>
        <span className="grow" />
        <div className="score-block">
          <span className="big-number">{formatScore1(pick.score)}</span>
          <span className="muted small">blended score</span>
        </div>
        <div className="score-block">
          <div className="confidence" title="Reflects evidence coverage and feedback volume">
            <div
              className="confidence-bar"
              style={{ width: `${Math.round((pick.confidence ?? 0) * 100)}%` }}
            />
          </div>
          <span className="muted small">{formatShare(pick.confidence)} confidence</span>
        </div>
      </div>
      <p className="reason-text" id="route-pick-reason">
        {pick.reason.text}
      </p>
      <FactsGrid model={pick} />
      {pick.worker && (
        <p className="small pick-worker" id="route-pick-worker">
          For a coding run: worker <code>{pick.worker.worker}</code>{" "}
          <span className="muted">({pick.worker.reason})</span>
        </p>
      )}
      <div className="rate-row">
        <span className="muted small">How did this pick work out?</span>
        <Stars value={rating} onRate={onRate} disabled={ratingBusy} label="Rate this pick" />
        {rating !== null && <span className="muted small">Saved: feeds future picks.</span>}
      </div>

      {pick.alternatives.length > 0 && (
        <>
          <h3>Runners-up</h3>
          <ol className="alternatives" id="route-alternatives">
            {pick.alternatives.map((alt) => (
              <li key={alt.id} data-model={alt.id}>
                <div className="alt-head">
                  <span className="rank">#{alt.reason.rank}</span>
                  <ModelLink id={alt.id} name={alt.name} />
                  <span className="muted small">{alt.provider}</span>
                  <span className="grow" />
                  <span className="small">{formatScore1(alt.score)}</span>
                  <span className="muted small">{formatPrice(alt.pricing.promptPerM)}/M</span>
                </div>
                <p className="muted small">{alt.reason.text}</p>
                {alt.worker && (
                  <p className="small alt-worker">
                    worker <code>{alt.worker.worker}</code>
                  </p>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}

/** A diverse set of models with their reasons. */
export function RecommendCard({
  models,
  classification,
  qualified,
  note,
}: {
  models: RankedModel[];
  classification: Classification | null;
  qualified: number;
  note: string | null;
}) {
  return (
    <div className="card recommend-card" id="route-recommend-card" data-count={models.length}>
      {classification && <ClassificationLine classification={classification} />}
      <div className="card-title-row">
        <h2>Recommended</h2>
        <span className="muted small">
          {models.length} of {qualified} qualifying, one per provider first
        </span>
      </div>
      {note && <p className="muted small">{note}</p>}
      {models.length === 0 ? (
        <p className="muted">No model fits these filters.</p>
      ) : (
        <ol className="recommend-list">
          {models.map((model) => (
            <li key={model.id} data-model={model.id}>
              <div className="alt-head">
                <span className="rank">#{model.reason.rank}</span>
                <ModelLink id={model.id} name={model.name} />
                <span className="pill provider">{model.provider}</span>
                <span className="grow" />
                <span className="muted small">{formatShare(model.confidence)} confidence</span>
              </div>
              <p className="small">{model.reason.text}</p>
              <FactsGrid model={model} />
              {model.worker && (
                <p className="small alt-worker">
                  For a coding run: worker <code>{model.worker.worker}</code>{" "}
                  <span className="muted">({model.worker.reason})</span>
                </p>
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
