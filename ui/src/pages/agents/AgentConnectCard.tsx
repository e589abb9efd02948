import { useEffect, useState } from "react";
import { type AgentClient, type AgentConnect, agentsIpc, describeError } from "../../ipc";
import { copyText } from "../roles/clipboard";
import { APPROVE_LABEL, approveNote, binaryLine, formatLabel, initialClient } from "./connect";
import "./agents.css";

type CopyState = "idle" | "copied" | "failed";

/** Settings → Connect an agent: a copyable MCP configuration per agent host (with the absolute
 * path of the installed `switchyard`), and the approve toggle, off by default. */
export function AgentConnectCard() {
  const [connect, setConnect] = useState<AgentConnect | null>(null);
  const [selected, setSelected] = useState<AgentClient | null>(null);
  const [copy, setCopy] = useState<CopyState>("idle");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    agentsIpc
      .connectConfigs()
      .then((c) => {
        setConnect(c);
        setSelected(initialClient(c.configs));
      })
      .catch((e) => setError(describeError(e).message));
  }, []);

  useEffect(() => {
    if (copy === "idle") return;
    const timer = setTimeout(() => setCopy("idle"), 2000);
    return () => clearTimeout(timer);
  }, [copy]);

  const config = connect?.configs.find((c) => c.client === selected) ?? null;

  const toggle = async (allowed: boolean) => {
    setBusy(true);
    setError(null);
    try {
      setConnect(await agentsIpc.setAgentsMayApprove(allowed));
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  const line = connect ? binaryLine(connect) : null;
  return (
    <div className="card" id="agent-connect">
      <h2>Connect an agent</h2>
      <p className="muted small">
        Let Claude Code, Codex, Cursor, Claude Desktop or another MCP host delegate bounded work to
        Switchyard. What it starts shows up here live, recorded under the agent's name, and you stay
        the one who approves. <span className="mono">switchyard mcp --guide</span> prints the guide
        the agent receives.
      </p>
      {error && (
        <p className="error" id="agent-connect-error">
          {error}
        </p>
      )}
      {connect === null ? (
        !error && <p className="muted">Looking for the switchyard command…</p>
      ) : (
        <>
          {line && (
            <p className={`small ${line.tone === "warn" ? "error" : "muted"}`} id="agent-binary">
              {line.text}
            </p>
          )}
          <div className="tabs" role="tablist" aria-label="Agent hosts">
            {connect.configs.map((c) => (
              <button
                key={c.client}
                type="button"
                role="tab"
                data-client={c.client}
                aria-selected={c.client === selected}
                className={c.client === selected ? "active" : undefined}
                onClick={() => {
                  setSelected(c.client);
                  setCopy("idle");
                }}
              >
                {c.title}
              </button>
            ))}
          </div>
          {config && (
            <div role="tabpanel" id="agent-snippet-panel">
              <div className="card-title-row">
                <span className="muted small">
                  {formatLabel(config.format)} · {config.target}
                </span>
                <span className="grow" />
                <button
                  type="button"
                  id="agent-snippet-copy"
                  className={copy === "copied" ? "success" : undefined}
                  onClick={async () =>
                    setCopy((await copyText(config.snippet)) ? "copied" : "failed")
                  }
                >
                  {copy === "copied" ? "Copied" : copy === "failed" ? "Copy failed" : "Copy"}
                </button>
              </div>
              <pre className="mono snippet" id="agent-snippet">
                {config.snippet}
              </pre>
            </div>
          )}
          <label className="check-row">
            <input
              type="checkbox"
              id="agents-may-approve"
              checked={connect.agentsMayApprove}
              disabled={busy}
              onChange={(e) => void toggle(e.target.checked)}
            />
            {APPROVE_LABEL}
          </label>
          <p className="muted small" id="agents-approve-note">
            {approveNote(connect.agentsMayApprove)}
          </p>
        </>
      )}
    </div>
  );
}
