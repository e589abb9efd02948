// A plan as a layered graph: one column per wave (Rust computes the waves), steps stacked in
// task order; steps with no wave (in or after a cycle) get a last column of their own.
import { type Layers, layoutLayers } from "../../components/layered";
import type { PlanEdge, PlanStep } from "./types";

export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 92;
export const COLUMN_GAP = 70;
export const ROW_GAP = 18;
export const PADDING = 12;

const SIZES = {
  nodeW: NODE_WIDTH,
  nodeH: NODE_HEIGHT,
  colGap: COLUMN_GAP,
  rowGap: ROW_GAP,
  pad: PADDING,
};

export interface StepNode {
  id: string;
  column: number;
  step: PlanStep;
}

export type GraphLayout = Layers<StepNode, PlanEdge>;

export function layoutGraph(steps: readonly PlanStep[], edges: readonly PlanEdge[]): GraphLayout {
  const maxWave = steps.reduce((max, s) => (s.wave === null ? max : Math.max(max, s.wave)), -1);
  const nodes = steps.map((step) => ({ id: step.id, column: step.wave ?? maxWave + 1, step }));
  return layoutLayers(nodes, edges, SIZES);
}
