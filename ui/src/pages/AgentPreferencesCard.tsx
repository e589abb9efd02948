import { useCallback, useEffect, useState } from "react";
import { type AgentPreference, describeError, ipc } from "../ipc";

/**
 * Settings → Agents: each agent that launched work here, its own record (which weighs double
 * in what it routes) and the model its runs start with when they name none.
 */
export function AgentPreferencesCard() {
  const [agents, setAgents] = useState<AgentPreference[] | null>(null);
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [newAgent, setNewAgent] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const show = useCallback((list: AgentPreference[]) => {
    setAgents(list);
    setDrafts(Object.fromEntries(list.map((a) => [a.agent, a.startModel ?? ""])));
  }, []);

  useEffect(() => {
    ipc
      .agentPreferences()
      .then(show)
      .catch((e) => setError(describeError(e).message));
  }, [show]);

  const save = async (agent: string, model: string) => {
    setBusy(agent);
    setError(null);
    try {
      show(await ipc.setAgentStartModel(agent, model.trim() === "" ? null : model.trim()));
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="card" id="agent-preferences">
      <h2>Agents</h2>
      <p className="muted small">
        Work an agent launches (over MCP, or the CLI under its <code>PARENT_AGENT</code>) is
        recorded under its name. Its own outcomes weigh double in the models it is routed to; a
        starting model is used when its runs name none (a single run's model, a routed cascade's
        first rung).
      </p>
      {agents !== null && agents.length === 0 && (
        <p className="muted" id="agent-preferences-empty">
          No agent has launched work yet.
        </p>
      )}
      {agents !== null && agents.length > 0 && (
        <table className="checks" id="agent-preferences-table">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Outcomes</th>
              <th scope="col">Starting model</th>
              <th scope="col">
                <span className="sr-only">Save</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.map((a) => (
              <tr key={a.agent} data-agent={a.agent}>
                <td className="mono">{a.agent}</td>
                <td>
                  {a.succeeded} of {a.outcomes} succeeded
                </td>
                <td>
                  <input
                    type="text"
                    aria-label={`Starting model for ${a.agent}`}
                    placeholder="the routed model"
                    value={drafts[a.agent] ?? ""}
                    onChange={(e) => setDrafts((d) => ({ ...d, [a.agent]: e.target.value }))}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    disabled={busy !== null || (drafts[a.agent] ?? "") === (a.startModel ?? "")}
                    onClick={() => void save(a.agent, drafts[a.agent] ?? "")}
                  >
                    {busy === a.agent ? "Saving…" : "Save"}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="form-row">
        <label htmlFor="agent-preferences-new">Set one for another agent</label>
        <input
          id="agent-preferences-new"
          type="text"
          placeholder="claude-code"
          value={newAgent}
          onChange={(e) => setNewAgent(e.target.value)}
        />
        <button
          type="button"
          id="agent-preferences-add"
          disabled={busy !== null || newAgent.trim() === ""}
          onClick={() => {
            const agent = newAgent.trim();
            setNewAgent("");
            setAgents((list) =>
              list?.some((a) => a.agent === agent)
                ? list
                : [...(list ?? []), { agent, startModel: null, outcomes: 0, succeeded: 0 }],
            );
          }}
        >
          Add
        </button>
      </div>
      {error && (
        <p className="error" id="agent-preferences-error">
          {error}
        </p>
      )}
    </div>
  );
}
