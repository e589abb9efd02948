import { PAGES, type PageId } from "../nav";

const WHAT_COMES: Record<Exclude<PageId, "settings">, string[]> = {
  models: [
    "A fast, filterable table of every model with category scores from five benchmark sources.",
    "A quality-vs-price plot with the Pareto frontier, a detail drawer explaining every score.",
    "Side-by-side compare of 2–5 models, and the catalog's per-source status with refresh.",
  ],
  route: [
    "Type a task and a budget; get the best model with the numbers behind the choice.",
    "Recommend a diverse set, or decompose the task into a plan or a parallel DAG.",
  ],
  roles: [
    "Compose persona, stack, domain, format and guardrail blocks into a role prompt.",
    "Live preview with token estimate, warnings, and presets you can reuse in runs.",
  ],
  runs: [
    "Single, collective, cascade and swarm runs executed in isolated git worktrees.",
    "Live worker output, cost so far against the run's hard cap, and recovery after a restart.",
  ],
  review: [
    "Every worker diff with its hash, gate results and the app's own verification run.",
    "Approve or reject each change; nothing merges without you, nothing is ever pushed.",
  ],
  keys: [
    "Provider keys stored only in the OS keychain; the app shows presence and last 4 characters.",
    "Test each provider with a real request; local Ollama and LM Studio servers detected.",
  ],
};

/** A page that is not built yet: says what will come there. */
export function Placeholder({ page }: { page: Exclude<PageId, "settings"> | PageId }) {
  const entry = PAGES.find((p) => p.id === page);
  const lines = page === "settings" ? [] : WHAT_COMES[page];
  return (
    <section className="page placeholder">
      <header className="page-header">
        <h1>{entry?.title}</h1>
        <p className="muted">{entry?.summary}</p>
      </header>
      <div className="card empty">
        <p className="eyebrow">Coming next</p>
        <ul>
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </div>
    </section>
  );
}
