import { describe, expect, it } from "vitest";
import {
  addStep,
  editTask,
  nextStepId,
  reassignModel,
  removeStep,
  stepsOf,
  toggleDependency,
} from "./plan";
import { step, swarm } from "./testdata.test-util";
import type { Plan } from "./types";

const dag = () => swarm([step("n1", [], 0), step("n2", ["n1"], 1), step("n3", ["n1", "n2"], 2)]);

describe("plan edits", () => {
  it("reassigns a model, and clears it when the field is emptied", () => {
    const next = reassignModel(dag(), "n2", "  openai/gpt-5 ");
    expect(stepsOf(next).find((s) => s.id === "n2")?.model).toBe("openai/gpt-5");
    expect(stepsOf(reassignModel(next, "n2", " ")).find((s) => s.id === "n2")?.model).toBeNull();
  });

  it("removes a step and every dependency on it, leaving the input alone", () => {
    const before = dag();
    const next = removeStep(before, "n1");
    expect(stepsOf(next).map((s) => s.id)).toEqual(["n2", "n3"]);
    expect(stepsOf(next).find((s) => s.id === "n3")?.dependsOn).toEqual(["n2"]);
    expect(stepsOf(before)).toHaveLength(3);
  });

  it("adds a step with a fresh id: a swarm node waits for what it is given", () => {
    const next = addStep(dag(), "  write docs ", ["n3"]);
    const added = stepsOf(next)[3];
    expect(added?.id).toBe("n4");
    expect(added?.task).toBe("write docs");
    expect(added?.dependsOn).toEqual(["n3"]);
    expect(added?.model).toBeNull();
  });

  it("adds a plan step after the last one", () => {
    const plan: Plan = {
      mode: "plan",
      task: "t",
      steps: [step("s1", [], 0), step("s2", ["s1"], 1)],
      edges: [],
      warnings: [],
      origin: "deterministic",
    };
    const added = stepsOf(addStep(plan, "deploy", ["s1"]))[2];
    expect(added?.id).toBe("s3");
    expect(added?.dependsOn).toEqual(["s2"]);
  });

  it("never reuses a taken id", () => {
    const plan = swarm([step("n1", [], 0), step("n3", [], 0)]);
    expect(nextStepId(plan)).toBe("n4");
    expect(nextStepId(swarm([step("n2", [], 0)]))).toBe("n3");
  });

  it("toggles a dependency both ways and ignores a step waiting for itself", () => {
    const on = toggleDependency(dag(), "n2", "n3");
    expect(stepsOf(on).find((s) => s.id === "n2")?.dependsOn).toEqual(["n1", "n3"]);
    const off = toggleDependency(on, "n2", "n1");
    expect(stepsOf(off).find((s) => s.id === "n2")?.dependsOn).toEqual(["n3"]);
    expect(toggleDependency(dag(), "n2", "n2")).toEqual(dag());
  });

  it("edits a step's task", () => {
    expect(stepsOf(editTask(dag(), "n1", "design the schema"))[0]?.task).toBe("design the schema");
  });
});
