import { describe, expect, it } from "vitest";
import { missingWorker } from "../doctor";
import { provider } from "../keys/testdata.test-util";
import {
  cliWorker,
  formProblem,
  modelIdPrefixes,
  pickerMode,
  withCliModel,
  workerOptions,
} from "./workers";

const clis = [missingWorker("claude"), missingWorker("codex"), missingWorker("opencode")];
const options = workerOptions([], clis).concat([
  { value: "model:openai/gpt-4o-mini", label: "GPT-4o mini", group: "model" },
]);

describe("pickerMode", () => {
  it("shows exec: commands as a command and listed workers as themselves", () => {
    expect(pickerMode("exec:./fix.sh", options, false)).toBe("exec");
    expect(pickerMode("exec:", options, false)).toBe("exec");
    expect(pickerMode("claude", options, false)).toBe("cli");
    expect(pickerMode("opencode:deepseek/deepseek-chat", options, false)).toBe("cli");
    expect(pickerMode("", options, false)).toBe("listed");
    expect(pickerMode("model:openai/gpt-4o-mini", options, false)).toBe("listed");
  });

  it("shows a model id the catalog does not list as typed", () => {
    expect(pickerMode("model:", options, false)).toBe("modelId");
    expect(pickerMode("model:lab-vllm:qwen3", options, false)).toBe("modelId");
  });

  it("keeps a row that chose Model by id typing even when the id matches a listed model", () => {
    expect(pickerMode("model:openai/gpt-4o-mini", options, true)).toBe("modelId");
  });
});

describe("modelIdPrefixes", () => {
  it("suggests custom endpoints first, then local servers, never data sources or cloud vendors", () => {
    const prefixes = modelIdPrefixes([
      provider("openrouter"),
      provider("ollama", { kind: "local" }),
      provider("artificial-analysis", { kind: "data-source" }),
      provider("lab-vllm", { custom: true }),
    ]);
    expect(prefixes).toEqual(["lab-vllm:", "ollama:"]);
  });
});

describe("formProblem", () => {
  const form = { repo: "/r", task: "Fix it", compare: false, timeout: "" };
  it("asks for a model id when Model by id is chosen but nothing is typed", () => {
    expect(formProblem({ ...form, workers: ["model:"] })).toBe(
      "Type the model's id as provider:model.",
    );
    expect(formProblem({ ...form, workers: ["model:lab-vllm:qwen3"] })).toBeNull();
  });
});

describe("cliWorker", () => {
  it("splits a CLI worker into the CLI and its routed model, and puts them back", () => {
    expect(cliWorker("claude", options)).toEqual({ cli: "claude", model: "" });
    expect(cliWorker("opencode:deepseek/deepseek-chat", options)).toEqual({
      cli: "opencode",
      model: "deepseek/deepseek-chat",
    });
    expect(cliWorker("model:openai/gpt-4o-mini", options)).toBeNull();
    expect(cliWorker("exec:make", options)).toBeNull();
    expect(withCliModel("codex", "  gpt-5-mini ")).toBe("codex:gpt-5-mini");
    expect(withCliModel("codex", " ")).toBe("codex");
  });
});
