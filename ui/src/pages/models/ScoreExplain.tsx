import { useState } from "react";
import type { BenchmarkValue, Category, CategoryScore } from "../../ipc";
import { explainScore } from "./explain";
import {
  CATEGORIES,
  CATEGORY_LABEL,
  formatScore,
  formatScore1,
  formatShare,
  formatWeight,
} from "./format";
import { CoverageMeter } from "./ModelTable";

function ScoreRow({
  category,
  score,
  benchmarks,
  initiallyOpen,
}: {
  category: Category;
  score: CategoryScore;
  benchmarks: readonly BenchmarkValue[];
  initiallyOpen: boolean;
}) {
  const [open, setOpen] = useState(initiallyOpen);
  const explained = explainScore(category, score, benchmarks);
  return (
    <li className={`score-item${open ? " open" : ""}`} data-category={category}>
      <button
        type="button"
        className="score-head"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span className="score-label">{CATEGORY_LABEL[category]}</span>
        <span className="score-bar wide">
          <span style={{ width: `${Math.max(0, Math.min(100, explained.score))}%` }} />
        </span>
        <span className="score-value">{formatScore(explained.score)}</span>
        <CoverageMeter coverage={explained.coverage} />
        <span className="muted small cov-text">{formatShare(explained.coverage)} coverage</span>
        <span className="caret" aria-hidden>
          {open ? "▾" : "▸"}
        </span>
      </button>
      {open && (
        <div className="why">
          <p className="formula mono">{explained.formula}</p>
          <p className="muted small">
            Σ weight × normalized ÷ Σ weight over the inputs with data; {explained.coverageText}.
          </p>
          <table className="why-table">
            <thead>
              <tr>
                <th scope="col">Input</th>
                <th scope="col" className="end">
                  Weight
                </th>
                <th scope="col" className="end">
                  Normalized
                </th>
                <th scope="col" className="end">
                  Weight × value
                </th>
                <th scope="col" className="end">
                  Share
                </th>
              </tr>
            </thead>
            <tbody>
              {explained.inputs.map((input) => (
                <tr key={input.metric} className={input.missing ? "missing" : undefined}>
                  <th scope="row" title={input.metric}>
                    {input.label}
                  </th>
                  <td className="end">{formatWeight(input.weight)}</td>
                  <td className="end">
                    {input.missing === "noData"
                      ? "no data"
                      : input.missing === "notNormalized"
                        ? "not normalized"
                        : formatScore1(input.normalized)}
                  </td>
                  <td className="end">
                    {input.product === null ? "" : formatScore1(input.product)}
                  </td>
                  <td className="end">{input.share === null ? "" : formatShare(input.share)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {explained.inputs.some((i) => i.missing === "notNormalized") && (
            <p className="muted small">
              “Not normalized”: fewer than 5 catalog models have that metric, or they all share one
              value, so it cannot be put on the 0–100 scale and does not count.
            </p>
          )}
        </div>
      )}
    </li>
  );
}

/** Every category score of a card with its "why": inputs, weights, coverage. */
export function ScoreExplain({
  categories,
  benchmarks,
  focus,
}: {
  categories: Partial<Record<Category, CategoryScore>>;
  benchmarks: readonly BenchmarkValue[];
  /** The category to open first (the page's chosen one). */
  focus: Category | null;
}) {
  const scored = CATEGORIES.filter((c) => categories[c]?.score != null);
  const unscored = CATEGORIES.filter((c) => categories[c]?.score == null);
  const first = focus && scored.includes(focus) ? focus : scored[0];
  return (
    <>
      {scored.length === 0 ? (
        <p className="muted">
          No category score: none of the benchmark sources has enough data on this model. Switchyard
          never makes a score up from price or tier.
        </p>
      ) : (
        <ul className="score-list">
          {scored.map((category) => {
            const score = categories[category];
            return score ? (
              <ScoreRow
                key={category}
                category={category}
                score={score}
                benchmarks={benchmarks}
                initiallyOpen={category === first}
              />
            ) : null;
          })}
        </ul>
      )}
      {unscored.length > 0 && scored.length > 0 && (
        <p className="muted small">
          No score (not enough evidence): {unscored.map((c) => CATEGORY_LABEL[c]).join(", ")}.
        </p>
      )}
    </>
  );
}
