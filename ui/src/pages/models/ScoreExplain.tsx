import { useState } from "react";
import type { ScoreBreakdown, ScoreTerm } from "../../ipc";
import { coverageText, formulaText } from "./explain";
import {
  CATEGORIES,
  CATEGORY_LABEL,
  formatScore,
  formatScore1,
  formatShare,
  formatWeight,
} from "./format";
import { CoverageMeter } from "./ModelTable";
import { formatRaw, type MetricRegistry } from "./metrics";

function normalizedCell(term: ScoreTerm): string {
  switch (term.status) {
    case "noData":
      return "no data";
    case "notNormalized":
      return "not normalized";
    case "used":
      return formatScore1(term.normalized);
  }
}

function ScoreRow({
  breakdown,
  registry,
  initiallyOpen,
}: {
  breakdown: ScoreBreakdown;
  registry: MetricRegistry;
  initiallyOpen: boolean;
}) {
  const [open, setOpen] = useState(initiallyOpen);
  const { category } = breakdown;
  const score = breakdown.score ?? 0;
  const coverage = breakdown.coverage ?? 0;
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
          <span style={{ width: `${Math.max(0, Math.min(100, score))}%` }} />
        </span>
        <span className="score-value">{formatScore(score)}</span>
        <CoverageMeter coverage={coverage} />
        <span className="muted small cov-text">{formatShare(coverage)} coverage</span>
        <span className="caret" aria-hidden>
          {open ? "▾" : "▸"}
        </span>
      </button>
      {open && (
        <div className="why">
          <p className="formula mono">{formulaText(breakdown)}</p>
          <p className="muted small">
            Σ weight × normalized ÷ Σ weight over the inputs with data; {coverageText(breakdown)}.
          </p>
          <table className="why-table">
            <thead>
              <tr>
                <th scope="col">Input</th>
                <th scope="col" className="end">
                  Weight
                </th>
                <th scope="col" className="end">
                  Raw
                </th>
                <th scope="col" className="end">
                  Normalized
                </th>
                <th scope="col" className="end">
                  Points
                </th>
                <th scope="col" className="end">
                  Share
                </th>
              </tr>
            </thead>
            <tbody>
              {breakdown.terms.map((term) => {
                const info = registry.info(term.metric);
                return (
                  <tr
                    key={term.metric}
                    className={term.status === "used" ? undefined : "missing"}
                    data-metric={term.metric}
                    data-status={term.status}
                  >
                    <th scope="row" title={term.metric}>
                      {info.label}
                    </th>
                    <td className="end">{formatWeight(term.weight)}</td>
                    <td className="end">
                      {term.raw === null || term.raw === undefined
                        ? ""
                        : formatRaw(term.raw, info.unit)}
                    </td>
                    <td className="end">{normalizedCell(term)}</td>
                    <td className="end">
                      {term.contribution === null || term.contribution === undefined
                        ? ""
                        : formatScore1(term.contribution)}
                    </td>
                    <td className="end">
                      {term.share === null || term.share === undefined
                        ? ""
                        : formatShare(term.share)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {breakdown.terms.some((t) => t.status === "notNormalized") && (
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

/** Every category score of a model with its "why", as the engine took it apart. */
export function ScoreExplain({
  breakdown,
  registry,
  focus,
}: {
  breakdown: readonly ScoreBreakdown[];
  registry: MetricRegistry;
  /** The category to open first (the page's chosen one). */
  focus: ScoreBreakdown["category"] | null;
}) {
  const scored = CATEGORIES.filter((c) => breakdown.some((b) => b.category === c));
  const unscored = CATEGORIES.filter((c) => !scored.includes(c));
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
            const explained = breakdown.find((b) => b.category === category);
            return explained ? (
              <ScoreRow
                key={category}
                breakdown={explained}
                registry={registry}
                initiallyOpen={category === first}
              />
            ) : null;
          })}
        </ul>
      )}
      {unscored.length > 0 && scored.length > 0 && (
        <p className="muted small">
          No score (not enough evidence; a score needs {formatShare(registry.minCoverage)} coverage
          at least): {unscored.map((c) => CATEGORY_LABEL[c]).join(", ")}.
        </p>
      )}
    </>
  );
}
