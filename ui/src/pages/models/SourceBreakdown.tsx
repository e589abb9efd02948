import type { BenchmarkValue, SourceId } from "../../ipc";
import { SOURCE_LABEL, SOURCES } from "./format";
import { formatRaw, type MetricRegistry } from "./metrics";

/** The benchmarks of a card grouped by source, in pipeline order. */
export function groupBySource(
  benchmarks: readonly BenchmarkValue[],
): [SourceId, BenchmarkValue[]][] {
  return SOURCES.map(
    (source) =>
      [source, benchmarks.filter((b) => b.source === source)] as [SourceId, BenchmarkValue[]],
  ).filter(([, values]) => values.length > 0);
}

/** Each source's raw and normalized values for one model, labelled by the engine's registry. */
export function SourceBreakdown({
  benchmarks,
  registry,
}: {
  benchmarks: readonly BenchmarkValue[];
  registry: MetricRegistry;
}) {
  const groups = groupBySource(benchmarks);
  if (groups.length === 0) {
    return <p className="muted">No benchmark values for this model.</p>;
  }
  return (
    <div className="sources" id="model-sources">
      {groups.map(([source, values]) => {
        const records = [...new Set(values.map((v) => v.record))];
        return (
          <section key={source} className="source-group" data-source={source}>
            <h4>
              {SOURCE_LABEL[source]}
              <span className="muted small mono" title="The source record the values came from">
                {records.join(", ")}
              </span>
            </h4>
            <table className="bench-table">
              <thead>
                <tr>
                  <th scope="col">Metric</th>
                  <th scope="col" className="end">
                    Raw
                  </th>
                  <th scope="col">Normalized (0–100)</th>
                </tr>
              </thead>
              <tbody>
                {values.map((value) => {
                  const info = registry.info(value.metric);
                  return (
                    <tr key={value.metric} className="bench-row" data-metric={value.metric}>
                      <th scope="row" title={value.metric}>
                        {info.label}
                        <span className="muted small"> {info.symbol}</span>
                      </th>
                      <td className="end mono-num">{formatRaw(value.raw, info.unit)}</td>
                      <td>
                        {value.normalized === null ? (
                          <span
                            className="muted small"
                            title="Fewer than 5 models have it, or no spread"
                          >
                            not normalized
                          </span>
                        ) : (
                          <span className="norm">
                            <span className="score-bar">
                              <span
                                style={{
                                  width: `${Math.max(0, Math.min(100, value.normalized))}%`,
                                }}
                              />
                            </span>
                            <span className="mono-num">{value.normalized.toFixed(1)}</span>
                          </span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </section>
        );
      })}
    </div>
  );
}
