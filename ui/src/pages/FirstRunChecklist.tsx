// The first-run checklist: what a new profile still needs, each item with its one-step fix.
// Shown on the start page (Models) until dismissed; Settings always shows it.
import { useCallback, useEffect, useState } from "react";
import {
  type FirstRunChecklist as Checklist,
  type ChecklistFix,
  catalogIpc,
  describeError,
  ipc,
} from "../ipc";
import { startupPrefs } from "../theme";

/** Where each fix leads (Settings cards have these ids). */
function runFix(fix: ChecklistFix): void {
  switch (fix) {
    case "openDoctor":
      goToCard("#/settings", "doctor");
      return;
    case "openKeys":
      window.location.hash = "#/keys";
      return;
    case "openAgentClis":
      goToCard("#/settings", "agent-clis");
      return;
    case "connectAgent":
      goToCard("#/settings", "agent-connect");
      return;
    case "refreshCatalog":
      window.location.hash = "#/models";
      void catalogIpc.refresh().catch(() => undefined);
      return;
  }
}

function goToCard(hash: string, id: string): void {
  window.location.hash = hash;
  // The page renders on the hash change; the card is there a frame later.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => document.getElementById(id)?.scrollIntoView({ block: "start" })),
  );
}

/** Whether it was dismissed when the app started: the start page then reserves no room for it. */
function startupDismissed(): boolean {
  return startupPrefs()?.checklistDismissed === true;
}

/**
 * On the start page (Models) the card takes its full height from the first frame while Rust
 * gathers it (the doctor can take a few seconds), so nothing below it moves when it fills in.
 */
export function FirstRunChecklist({ placement }: { placement: "start" | "settings" }) {
  const [list, setList] = useState<Checklist | null>(null);
  const [error, setError] = useState<string | null>(null);

  const [wasDismissed] = useState(startupDismissed);
  const load = useCallback(async () => {
    try {
      const found = await ipc.firstRunChecklist();
      setList(found);
      setError(null);
    } catch (e) {
      setError(describeError(e).message);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const dismiss = async (dismissed: boolean) => {
    try {
      const stored = await ipc.setChecklistDismissed(dismissed);
      setList(stored);
    } catch (e) {
      setError(describeError(e).message);
    }
  };

  if (placement === "start" && (list ? list.dismissed : wasDismissed)) return null;
  const total = list?.items.length ?? 0;
  return (
    <section
      className={`card checklist ${placement}${list ? "" : " loading"}`}
      id={placement === "start" ? "first-run" : "first-run-settings"}
      aria-label="Getting started"
    >
      <div className="card-title-row">
        <h2>Getting started</h2>
        {list && (
          <span className="pill-text" id={`${placement}-checklist-count`}>
            {list.done} of {total} done
          </span>
        )}
        <span className="grow" />
        {placement === "start" ? (
          <button
            type="button"
            className="ghost"
            id="first-run-dismiss"
            onClick={() => void dismiss(true)}
          >
            Dismiss
          </button>
        ) : (
          list?.dismissed && (
            <button
              type="button"
              className="ghost"
              id="first-run-show"
              onClick={() => void dismiss(false)}
            >
              Show at start again
            </button>
          )
        )}
      </div>
      {error && <p className="error small">{error}</p>}
      {!list && !error && <p className="muted small">Checking…</p>}
      {list && (
        <ul className="checklist-items">
          {list.items.map((item) => (
            <li
              key={item.id}
              className="checklist-item"
              data-item={item.id}
              data-done={item.done ? "yes" : "no"}
            >
              <span className={`dot ${item.done ? "ok" : "warn"}`} aria-hidden="true" />
              <span className="checklist-text">
                <strong>{item.title}</strong>
                <span className="muted small">
                  {item.done ? "Done: " : ""}
                  {item.detail}
                </span>
              </span>
              {item.fix && (
                <button
                  type="button"
                  className="ghost"
                  data-fix={item.fix}
                  onClick={() => item.fix && runFix(item.fix)}
                >
                  {item.fixLabel}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
