import { categoryLabel } from "./format";
import { layoutGraph, NODE_HEIGHT, NODE_WIDTH } from "./graph";
import type { PlanEdge, PlanIssue, PlanStep } from "./types";

interface Props {
  steps: PlanStep[];
  edges: PlanEdge[];
  issues: PlanIssue[];
  selected: string | null;
  onSelect: (id: string) => void;
}

/** Steps in columns by wave, dependencies as arrows; click a node to edit it. */
export function PlanGraph({ steps, edges, issues, selected, onSelect }: Props) {
  const layout = layoutGraph(steps, edges);
  const flagged = new Set(issues.map((i) => i.step).filter((s): s is string => s !== null));
  const cycleEdges = new Set(issues.flatMap((i) => i.edges.map((e) => `${e.from}>${e.to}`)));
  const waves = Array.from({ length: layout.columns }, (_, column) => column);
  const unplaced = steps.some((s) => s.wave === null);
  // Backward edges loop below the nodes.
  const below = layout.edges.some((e) => e.backward) ? 40 : 0;

  return (
    <div
      className="plan-graph-scroll"
      id="route-graph"
      data-nodes={layout.nodes.length}
      data-edges={layout.edges.length}
    >
      <div
        className="plan-graph"
        style={{ width: layout.width, height: layout.height + 28 + below }}
      >
        {waves.map((column) => (
          <span
            key={column}
            className="wave-label"
            style={{ left: layout.nodes.find((n) => n.column === column)?.x ?? 0 }}
          >
            {unplaced && column === layout.columns - 1 ? "In a cycle" : `Wave ${column + 1}`}
          </span>
        ))}
        <svg
          className="plan-edges"
          width={layout.width}
          height={layout.height + below}
          role="img"
          aria-label={`${layout.edges.length} dependencies`}
        >
          <defs>
            <marker
              id="route-arrow"
              viewBox="0 0 10 10"
              refX="8"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" className="arrow-head" />
            </marker>
          </defs>
          {layout.edges.map((line) => {
            const key = `${line.edge.from}>${line.edge.to}`;
            const hot =
              selected !== null && (line.edge.from === selected || line.edge.to === selected);
            return (
              <path
                key={key}
                d={line.path}
                className={[
                  "edge",
                  line.backward || cycleEdges.has(key) ? "bad" : "",
                  hot ? "hot" : "",
                ].join(" ")}
                markerEnd="url(#route-arrow)"
                data-from={line.edge.from}
                data-to={line.edge.to}
              >
                <title>
                  {line.edge.from} → {line.edge.to}: {line.edge.reason}
                </title>
              </path>
            );
          })}
        </svg>
        {layout.nodes.map(({ node: { step }, x, y }) => (
          <button
            type="button"
            key={step.id}
            className={[
              "plan-node",
              step.id === selected ? "selected" : "",
              flagged.has(step.id) || step.wave === null ? "flagged" : "",
            ].join(" ")}
            style={{ left: x, top: y + 28, width: NODE_WIDTH, height: NODE_HEIGHT }}
            data-step={step.id}
            data-wave={step.wave ?? ""}
            onClick={() => onSelect(step.id)}
            title={step.task}
          >
            <span className="node-top">
              <span className="node-id">{step.id}</span>
              <span className="pill category" data-category={step.category}>
                {categoryLabel(step.category)}
              </span>
            </span>
            <span className="node-task">{step.task}</span>
            <span className={step.model ? "node-model mono" : "node-model none"}>
              {step.model ?? "no model fits"}
            </span>
          </button>
        ))}
      </div>
    </div>
  );
}
