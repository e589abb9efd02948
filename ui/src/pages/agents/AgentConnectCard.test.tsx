import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentConfig, AgentConnect } from "../../ipc";

const configs: AgentConfig[] = [
  {
    client: "claudeCode",
    title: "Claude Code",
    target: "Run in a terminal (add --scope user to use it in every project)",
    format: "shell",
    snippet: "claude mcp add switchyard -- '/opt/Switch Yard/switchyard' mcp",
  },
  {
    client: "codex",
    title: "Codex",
    target: "~/.codex/config.toml",
    format: "toml",
    snippet: '[mcp_servers.switchyard]\ncommand = "/opt/Switch Yard/switchyard"\nargs = ["mcp"]\n',
  },
];

const connect: AgentConnect = {
  binary: "/opt/Switch Yard/switchyard",
  problem: null,
  configs,
  agentsMayApprove: false,
};

vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    agentsIpc: {
      connectConfigs: vi.fn(async () => connect),
      setAgentsMayApprove: vi.fn(async (allowed: boolean) => ({
        ...connect,
        agentsMayApprove: allowed,
      })),
    },
  };
});

const { AgentConnectCard } = await import("./AgentConnectCard");
const { agentsIpc } = await import("../../ipc");

const writeText = vi.fn(async (_text: string) => {});

beforeEach(() => {
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
  writeText.mockClear();
  vi.mocked(agentsIpc.setAgentsMayApprove).mockClear();
});

afterEach(() => {
  document.body.innerHTML = "";
});

async function renderCard() {
  await act(async () => {
    render(<AgentConnectCard />);
  });
}

const snippet = () => document.querySelector("#agent-snippet")?.textContent;

describe("AgentConnectCard", () => {
  it("shows Claude Code's command with the installed binary and copies it exactly", async () => {
    await renderCard();
    expect(screen.getByText("Snippets start /opt/Switch Yard/switchyard mcp")).toBeTruthy();
    expect(snippet()).toBe(configs[0]?.snippet);
    await act(async () => {
      fireEvent.click(document.querySelector("#agent-snippet-copy") as HTMLButtonElement);
    });
    expect(writeText).toHaveBeenCalledWith(configs[0]?.snippet);
    expect(document.querySelector("#agent-snippet-copy")?.textContent).toBe("Copied");
  });

  it("switches to another host's snippet and copies that one", async () => {
    await renderCard();
    const tab = document.querySelector('[data-client="codex"]') as HTMLButtonElement;
    await act(async () => {
      fireEvent.click(tab);
    });
    expect(tab.getAttribute("aria-selected")).toBe("true");
    expect(snippet()).toBe(configs[1]?.snippet);
    expect(screen.getByText("TOML · ~/.codex/config.toml")).toBeTruthy();
    await act(async () => {
      fireEvent.click(document.querySelector("#agent-snippet-copy") as HTMLButtonElement);
    });
    expect(writeText).toHaveBeenCalledWith(configs[1]?.snippet);
  });

  it("keeps the approve toggle off by default and stores a change", async () => {
    await renderCard();
    const toggle = document.querySelector("#agents-may-approve") as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect(document.querySelector("#agents-approve-note")?.textContent).toContain(
      "no approve tool",
    );
    await act(async () => {
      fireEvent.click(toggle);
    });
    expect(agentsIpc.setAgentsMayApprove).toHaveBeenCalledWith(true);
    expect(toggle.checked).toBe(true);
    expect(document.querySelector("#agents-approve-note")?.textContent).toContain(
      "switchyard_approve",
    );
  });

  it("says when no switchyard binary was found", async () => {
    vi.mocked(agentsIpc.connectConfigs).mockResolvedValueOnce({
      ...connect,
      binary: null,
      problem: "the switchyard command was not found next to the app or on PATH",
    });
    await renderCard();
    const line = document.querySelector("#agent-binary");
    expect(line?.textContent).toContain("not found next to the app");
    expect(line?.className).toContain("error");
  });
});
