import { StatePill } from "../../components/StatePill";
import { runWord } from "../../states";
import { ago, formatCost, modeTitle, reasonShort, runSavings, taskTitle } from "./format";
import { runsHash } from "./route";
import type { RunSummary } from "./types";

/** Runs, newest first: state, task, mode, who launched it, progress, cost against the cap. */
export function RunList({ runs, now }: { runs: readonly RunSummary[]; now: number }) {
  return (
    <div className="run-list-scroll">
      <table className="run-list" id="runs-list" data-count={runs.length}>
        <thead>
          <tr>
            <th>State</th>
            <th>Task</th>
            <th>Mode</th>
            <th>Launched by</th>
            <th className="num">Nodes</th>
            <th className="num">Cost / cap</th>
            <th className="num">Savings</th>
            <th className="num">Started</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-run={run.id} data-state={run.state} data-mode={run.mode}>
              <td>
                <StatePill word={runWord(run.state)} />
                {run.reason && run.state !== "canceled" && (
                  <span className="reason small" data-reason={run.reason}>
                    {reasonShort(run.reason)}
                  </span>
                )}
              </td>
              <td className="task-cell">
                <a href={runsHash({ view: "run", id: run.id })} title={run.task}>
                  {taskTitle(run.task, 80)}
                </a>
              </td>
              <td>{modeTitle(run.mode)}</td>
              <td className="mono small">{run.launcher}</td>
              <td className="num">
                {run.nodesDone}/{run.nodes}
              </td>
              <td className="num">
                {formatCost(run.costUsd)} <span className="muted">/ {formatCost(run.maxUsd)}</span>
              </td>
              <td
                className={`num ${runSavings(run.costUsd, run.savingsUsd) === "—" ? "muted" : (run.savingsUsd ?? 0) >= 0 ? "savings" : "over"}`}
              >
                {runSavings(run.costUsd, run.savingsUsd)}
              </td>
              <td className="num muted">{ago(run.createdMs, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
