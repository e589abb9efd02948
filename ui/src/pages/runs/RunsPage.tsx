import { useEffect, useState } from "react";
import { LaunchForm } from "./LaunchForm";
import { RunDetail } from "./RunDetail";
import { RunsList } from "./RunsList";
import { type RunsRoute, runsHash, runsRoute } from "./route";
import "../route/route.css";
import "./runs.css";

/** Runs: spend and the run list, the launch form with its editable preview, one run live. */
export function RunsPage({ now = Date.now }: { now?: () => number }) {
  const [route, setRoute] = useState<RunsRoute>(() => runsRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(runsRoute(window.location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  return (
    <section className="page runs route form-page" id="runs-page" data-view={route.view}>
      {route.view === "list" && <RunsList now={now} />}
      {route.view === "new" && (
        <>
          <header className="page-header">
            <div>
              <p className="eyebrow">
                <a href={runsHash({ view: "list" })}>Runs</a> / new run
              </p>
              <h1>New run</h1>
            </div>
          </header>
          <LaunchForm />
        </>
      )}
      {route.view === "run" && <RunDetail key={route.id} id={route.id} now={now} />}
    </section>
  );
}
