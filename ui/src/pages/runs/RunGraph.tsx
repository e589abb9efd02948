import { memo } from "react";
import { nodeWord } from "../../states";
import { layoutRunGraph, NODE_H, NODE_W } from "./dag";
import type { NodeState } from "./types";

/** One box of the graph, in words the page already has. */
export interface GraphItem {
  id: string;
  dependsOn: readonly string[];
  /** Its column, from Rust (`dag::columns`). */
  column: number;
  task: string;
  /** The model or worker. */
  who: string | null;
  /** `null` before launch (a preview). */
  state: NodeState | null;
  /** A short right-aligned note: cost, rung. */
  note?: string;
  /** The last line it streamed, while it runs. */
  tail?: string;
}

interface Props {
  items: readonly GraphItem[];
  selected: string | null;
  onSelect?: (id: string) => void;
  id: string;
}

/** The run's nodes in columns by dependency depth, arrows for dependencies, live states. */
export const RunGraph = memo(function RunGraph({ items, selected, onSelect, id }: Props) {
  const layout = layoutRunGraph(items);
  return (
    <div className="run-graph-scroll" id={id} data-nodes={items.length}>
      <div className="run-graph" style={{ width: layout.width, height: layout.height }}>
        <svg
          className="run-edges"
          width={layout.width}
          height={layout.height}
          role="img"
          aria-label={`${layout.edges.length} dependencies`}
        >
          <defs>
            <marker
              id={`${id}-arrow`}
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
          {layout.edges.map((edge) => (
            <path
              key={`${edge.edge.from}>${edge.edge.to}`}
              d={edge.path}
              className={
                selected !== null && (edge.edge.from === selected || edge.edge.to === selected)
                  ? "edge hot"
                  : "edge"
              }
              markerEnd={`url(#${id}-arrow)`}
              data-from={edge.edge.from}
              data-to={edge.edge.to}
            />
          ))}
        </svg>
        {layout.nodes.map(({ node, x, y }) => (
          <NodeBox
            key={node.id}
            id={node.id}
            task={node.task}
            who={node.who}
            state={node.state}
            note={node.note}
            tail={node.tail}
            x={x}
            y={y}
            selected={node.id === selected}
            onSelect={onSelect}
          />
        ))}
      </div>
    </div>
  );
});

/** One box; re-rendered only when what it shows changes (four streaming nodes update their
 * own boxes, not the whole graph). */
const NodeBox = memo(function NodeBox({
  id,
  task,
  who,
  state,
  note,
  tail,
  x,
  y,
  selected,
  onSelect,
}: Omit<GraphItem, "dependsOn" | "column"> & {
  x: number;
  y: number;
  selected: boolean;
  onSelect?: (id: string) => void;
}) {
  return (
    <button
      type="button"
      className={[
        "run-node",
        state ? `tone-${nodeWord(state).tone}` : "tone-idle",
        selected ? "selected" : "",
      ].join(" ")}
      style={{ left: x, top: y, width: NODE_W, height: NODE_H }}
      data-node={id}
      data-state={state ?? ""}
      onClick={onSelect ? () => onSelect(id) : undefined}
      disabled={!onSelect}
      title={task}
    >
      <span className="node-top">
        <span className="node-id mono">{id}</span>
        {state && (
          <span className={`node-state ${nodeWord(state).tone}`}>{nodeWord(state).label}</span>
        )}
        <span className="grow" />
        {note && <span className="node-note small">{note}</span>}
      </span>
      <span className="node-task">{task}</span>
      <span className="node-who mono">{tail ?? who ?? "—"}</span>
    </button>
  );
});
