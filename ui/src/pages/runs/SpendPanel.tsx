import { useCallback, useEffect, useState } from "react";
import { describeError } from "../../ipc";
import { runsIpc } from "./api";
import { formatCost, modeTitle } from "./format";
import { SpendChart } from "./SpendChart";
import { fillDays } from "./spendOption";
import type { RunMode, SpendReport, SpendTotal } from "./types";

const PERIODS = [
  { id: "7", label: "7 days", days: 7 },
  { id: "30", label: "30 days", days: 30 },
  { id: "all", label: "All time", days: null },
] as const;

type PeriodId = (typeof PERIODS)[number]["id"];

const DAY_MS = 86_400_000;

function Breakdown({
  title,
  rows,
  label,
  showSavings,
  id,
  plain = false,
}: {
  title: string;
  rows: readonly SpendTotal[];
  label: (key: string) => string;
  showSavings: boolean;
  id: string;
  /** Keys are words (modes), not ids. */
  plain?: boolean;
}) {
  const top = Math.max(0, ...rows.map((r) => r.costUsd ?? 0));
  return (
    <div className="spend-breakdown" id={id}>
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p className="muted small">Nothing yet.</p>
      ) : (
        <table className="spend-table">
          <tbody>
            {rows.map((row) => (
              <tr key={row.key} data-key={row.key}>
                <td className={plain ? "spend-key plain" : "spend-key"} title={row.key}>
                  {label(row.key)}
                </td>
                <td className="spend-bar-cell">
                  <span
                    className="spend-bar"
                    style={{ width: `${top > 0 ? ((row.costUsd ?? 0) / top) * 100 : 0}%` }}
                  />
                </td>
                <td className="num">{formatCost(row.costUsd)}</td>
                {showSavings && <td className="num savings">{formatCost(row.savingsUsd)}</td>}
                <td className="num muted">
                  {row.runs} run{row.runs === 1 ? "" : "s"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Spend and savings over time, per model and per mode (the engine adds them up). */
export function SpendPanel({ version, now }: { version: number; now: () => number }) {
  const [period, setPeriod] = useState<PeriodId>("30");
  const [report, setReport] = useState<SpendReport | null>(null);
  const [range, setRange] = useState<{ from: number | null; to: number }>({ from: null, to: 0 });
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const days = PERIODS.find((p) => p.id === period)?.days ?? null;
    const to = now();
    const from = days === null ? null : to - (days - 1) * DAY_MS;
    try {
      setReport(await runsIpc.spend(days === null ? null : to - days * DAY_MS));
      setRange({ from, to });
      setError(null);
    } catch (e) {
      setError(describeError(e).message);
    }
  }, [period, now]);

  // `version` changes when a run ends: the totals move.
  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the reload trigger
  useEffect(() => {
    void load();
  }, [load, version]);

  return (
    <div className="card spend-card" id="runs-spend" data-runs={report?.runs ?? ""}>
      <div className="card-title-row">
        <h2>Spend and savings</h2>
        <span className="grow" />
        <fieldset className="segmented" aria-label="Period">
          {PERIODS.map((p) => (
            <button
              key={p.id}
              type="button"
              className={period === p.id ? "on" : undefined}
              aria-pressed={period === p.id}
              data-period={p.id}
              onClick={() => setPeriod(p.id)}
            >
              {p.label}
            </button>
          ))}
        </fieldset>
      </div>
      {error && <p className="error small">{error}</p>}
      {report && report.runs === 0 && (
        <p className="muted small" id="runs-spend-empty">
          No run in this period. Every run records what it cost and what the same tokens would have
          cost on the baseline model (Settings → Runs); the totals show here.
        </p>
      )}
      {report && report.runs > 0 && (
        <>
          <dl className="spend-totals">
            <div>
              <dt>Spent</dt>
              <dd id="runs-spent">{formatCost(report.costUsd)}</dd>
            </div>
            <div>
              <dt>Saved vs the baseline</dt>
              <dd id="runs-saved" className="savings">
                {formatCost(report.savingsUsd)}
              </dd>
            </div>
            <div>
              <dt>Runs</dt>
              <dd id="runs-count">{report.runs}</dd>
            </div>
          </dl>
          <SpendChart days={fillDays(report.byDay, range.from, range.to)} />
          <div className="spend-breakdowns">
            <Breakdown
              id="runs-spend-models"
              title="Per model"
              rows={report.byModel}
              label={(key) => key}
              showSavings={false}
            />
            <Breakdown
              id="runs-spend-modes"
              title="Per mode"
              rows={report.byMode}
              label={(key) => modeTitle(key as RunMode)}
              showSavings
            />
          </div>
        </>
      )}
    </div>
  );
}
