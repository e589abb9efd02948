import { describe, expect, it } from "vitest";
import type { AgentConfig, AgentConnect } from "../../ipc";
import { APPROVE_LABEL, approveNote, binaryLine, formatLabel, initialClient } from "./connect";

const codex: AgentConfig = {
  client: "codex",
  title: "Codex",
  target: "~/.codex/config.toml",
  format: "toml",
  snippet: '[mcp_servers.switchyard]\ncommand = "/usr/bin/switchyard"\nargs = ["mcp"]\n',
};

const found: AgentConnect = {
  binary: "/usr/bin/switchyard",
  problem: null,
  configs: [codex],
  agentsMayApprove: false,
};

describe("connect card logic", () => {
  it("names the binary the snippets start, or says why there is none", () => {
    expect(binaryLine(found)).toEqual({
      tone: "ok",
      text: "Snippets start /usr/bin/switchyard mcp",
    });
    const missing = { ...found, binary: null, problem: "the switchyard command was not found" };
    expect(binaryLine(missing)).toEqual({
      tone: "warn",
      text: "the switchyard command was not found",
    });
  });

  it("explains both states of the approve toggle, off meaning no approve tool", () => {
    expect(APPROVE_LABEL).toBe("Agents may approve runs whose gates all passed");
    expect(approveNote(false)).toContain("no approve tool");
    expect(approveNote(true)).toContain("switchyard_approve");
    expect(approveNote(true)).toContain("every gate passed");
  });

  it("labels formats and shows Claude Code first when it is there", () => {
    expect(formatLabel("shell")).toBe("Terminal command");
    expect(formatLabel("toml")).toBe("TOML");
    expect(formatLabel("json")).toBe("JSON");
    expect(initialClient([codex])).toBe("codex");
    expect(initialClient([codex, { ...codex, client: "claudeCode" }])).toBe("claudeCode");
    expect(initialClient([])).toBeNull();
  });
});
