import { useCallback, useEffect, useState } from "react";
import { type AttemptSummary, describeError, reviewEvents, reviewIpc } from "../../ipc";
import { AttemptDetail } from "./AttemptDetail";
import { AttemptList } from "./AttemptList";
import { CompareView } from "./CompareView";
import { NewTaskForm } from "./NewTaskForm";
import { type ReviewRoute, reviewHash, reviewRoute } from "./route";
import "./review.css";

/** Review: attempts awaiting a decision, one attempt in full, a comparison, a new task. */
export function ReviewPage() {
  const [route, setRoute] = useState<ReviewRoute>(() => reviewRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(reviewRoute(window.location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  return (
    <section className="page review form-page" id="review-page" data-view={route.view}>
      {route.view === "list" && <ListView />}
      {route.view === "new" && (
        <>
          <header className="page-header">
            <div>
              <p className="eyebrow">
                <a href={reviewHash({ view: "list" })}>Review</a> / new task
              </p>
              <h1>New task</h1>
            </div>
          </header>
          <NewTaskForm />
        </>
      )}
      {route.view === "attempt" && <AttemptDetail id={route.id} now={Date.now} />}
      {route.view === "compare" && <CompareView id={route.id} />}
    </section>
  );
}

function ListView() {
  const [attempts, setAttempts] = useState<AttemptSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setAttempts(await reviewIpc.list());
      setError(null);
    } catch (e) {
      setError(describeError(e).message);
    }
  }, []);
  useEffect(() => {
    void reload();
    const unlisten = reviewEvents.onAttemptState(() => void reload());
    return () => void unlisten.then((stop) => stop());
  }, [reload]);
  return (
    <>
      <header className="page-header">
        <div>
          <h1>Review</h1>
          <p className="muted">
            Workers edit their own worktrees; nothing merges until you approve it here.
          </p>
        </div>
        <span className="grow" />
        <a className="button primary" href={reviewHash({ view: "new" })} id="new-task">
          New task
        </a>
      </header>
      {error && (
        <div className="card error-card" id="review-error">
          <p className="error">{error}</p>
        </div>
      )}
      {attempts ? (
        <AttemptList attempts={attempts} now={Date.now()} />
      ) : (
        !error && <p className="muted">Loading…</p>
      )}
    </>
  );
}
