// What the "Connect an agent" card says, apart from React: labels, the binary line and the
// approve toggle's explanation.

import type { AgentClient, AgentConfig, AgentConnect, SnippetFormat } from "../../ipc";

/** The toggle's label: the setting's name in the issue and the README. */
export const APPROVE_LABEL = "Agents may approve runs whose gates all passed";

/** How a snippet is used, for the label above it. */
export function formatLabel(format: SnippetFormat): string {
  switch (format) {
    case "shell":
      return "Terminal command";
    case "toml":
      return "TOML";
    case "json":
      return "JSON";
  }
}

/** The line about the binary the snippets start: its path, or why there is none. */
export function binaryLine(connect: AgentConnect): { tone: "ok" | "warn"; text: string } {
  if (connect.binary !== null) {
    return { tone: "ok", text: `Snippets start ${connect.binary} mcp` };
  }
  return {
    tone: "warn",
    text: connect.problem ?? "The switchyard command was not found; the snippets name it bare.",
  };
}

/** What the toggle means now, in one sentence. */
export function approveNote(allowed: boolean): string {
  return allowed
    ? "Agents get a switchyard_approve tool that approves and integrates work only when every " +
        "gate passed. Agent sessions started from now on see it."
    : "Off: agents have no approve tool. They are told the work awaits your review here, and " +
        "Switchyard notifies you.";
}

/** The config shown first: the one for `preferred` when present, else the first. */
export function initialClient(
  configs: AgentConfig[],
  preferred: AgentClient = "claudeCode",
): AgentClient | null {
  if (configs.some((c) => c.client === preferred)) return preferred;
  return configs[0]?.client ?? null;
}
