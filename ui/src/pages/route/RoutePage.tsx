import { useCallback, useEffect, useState } from "react";
import { describeError, type LearningSettings } from "../../ipc";
import { openLaunchForm } from "../runs/handoff";
import { routeIpc } from "./api";
import { describeRejections } from "./format";
import { LearningSummary } from "./LearningSummary";
import { PastPicks } from "./PastPicks";
import { PickCard, RecommendCard } from "./PickCard";
import { PlanView } from "./PlanView";
import { EMPTY_INPUT, type RouteAction, RouteForm, type RouteInput } from "./RouteForm";
import { planRequest, routeRequest } from "./request";
import type {
  Classification,
  PastPick,
  PickAnswer,
  Plan,
  PlanIssue,
  Recommendation,
} from "./types";
import "./route.css";

const PAST_PICKS = 12;

interface Results {
  pick: PickAnswer | null;
  pickRating: number | null;
  recommend: { recommendation: Recommendation; classification: Classification | null } | null;
  plan: { plan: Plan; issues: PlanIssue[] } | null;
}

const NO_RESULTS: Results = { pick: null, pickRating: null, recommend: null, plan: null };

// The page unmounts when the user follows a model link; coming back restores what they had.
let kept: { input: RouteInput; results: Results } = { input: EMPTY_INPUT, results: NO_RESULTS };

/** Forgets the kept form and answers (a fresh page, as after a restart). */
export function forgetRouteState() {
  kept = { input: EMPTY_INPUT, results: NO_RESULTS };
}

/** Route: pick or recommend models for a task, or plan it as steps or a swarm DAG. */
export function RoutePage() {
  const [input, setInput] = useState<RouteInput>(kept.input);
  const [results, setResults] = useState<Results>(kept.results);
  const [busy, setBusy] = useState<RouteAction | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [rechecking, setRechecking] = useState(false);
  const [editError, setEditError] = useState<string | null>(null);
  const [ratingBusy, setRatingBusy] = useState(false);
  const [past, setPast] = useState<PastPick[] | null>(null);
  const [pastError, setPastError] = useState<string | null>(null);

  useEffect(() => {
    kept = { input, results };
  }, [input, results]);

  const loadPast = useCallback(async () => {
    try {
      setPast(await routeIpc.recentPicks(PAST_PICKS));
      setPastError(null);
    } catch (e) {
      setPastError(describeError(e).message);
    }
  }, []);

  useEffect(() => {
    void loadPast();
  }, [loadPast]);

  // What learning has saved so far; the page works without it.
  const [learning, setLearning] = useState<LearningSettings | null>(null);
  useEffect(() => {
    routeIpc
      .learningSettings()
      .then(setLearning)
      .catch(() => setLearning(null));
  }, []);

  const run = useCallback(
    async (action: RouteAction) => {
      setBusy(action);
      setError(null);
      try {
        if (action === "pick") {
          const answer = await routeIpc.pick(routeRequest(input));
          setResults((r) => ({ ...r, pick: answer, pickRating: null }));
          void loadPast();
        } else if (action === "recommend") {
          const request = routeRequest(input);
          const [recommendation, classification] = await Promise.all([
            routeIpc.recommend(request, input.count),
            routeIpc.classify(request.task).catch(() => null),
          ]);
          setResults((r) => ({ ...r, recommend: { recommendation, classification } }));
        } else {
          const plan = await routeIpc.plan(planRequest(input, action));
          const check = await routeIpc.revalidate(plan);
          setResults((r) => ({ ...r, plan: check }));
          setEditError(null);
        }
      } catch (e) {
        setError(describeError(e).message);
      } finally {
        setBusy(null);
      }
    },
    [input, loadPast],
  );

  const edit = useCallback(async (next: Plan) => {
    setResults((r) => ({ ...r, plan: r.plan && { ...r.plan, plan: next } }));
    setRechecking(true);
    try {
      const check = await routeIpc.revalidate(next);
      setResults((r) => ({ ...r, plan: check }));
      setEditError(null);
    } catch (e) {
      setEditError(describeError(e).message);
    } finally {
      setRechecking(false);
    }
  }, []);

  const ratePick = useCallback(
    async (rating: number) => {
      const answer = results.pick;
      if (!answer) return;
      setRatingBusy(true);
      try {
        await routeIpc.ratePick(answer.pickId, rating);
        setResults((r) => ({ ...r, pickRating: rating }));
        void loadPast();
      } catch (e) {
        setError(describeError(e).message);
      } finally {
        setRatingBusy(false);
      }
    },
    [results.pick, loadPast],
  );

  const ratePast = useCallback(
    async (pick: PastPick, rating: number) => {
      try {
        await routeIpc.ratePick(pick.id, rating);
        setPast((list) => list?.map((p) => (p.id === pick.id ? { ...p, rating } : p)) ?? null);
        if (results.pick && results.pick.pickId === pick.id) {
          setResults((r) => ({ ...r, pickRating: rating }));
        }
      } catch (e) {
        setPastError(describeError(e).message);
      }
    },
    [results.pick],
  );

  const knownModels = [
    ...(results.pick
      ? [results.pick.pick.id, ...results.pick.pick.alternatives.map((a) => a.id)]
      : []),
    ...(results.recommend?.recommendation.models.map((m) => m.id) ?? []),
  ].filter((id, index, all) => all.indexOf(id) === index);

  const nothingYet = !results.pick && !results.recommend && !results.plan;
  // A run calls any model a provider serves (`provider:model`, a local server's): a model
  // missing from the catalog is the run preview's to judge, not a reason to keep Launch shut.
  const runBlockers =
    results.plan?.issues.filter((i) => i.severity === "error" && i.code !== "unknownModel")
      .length ?? 0;

  return (
    <section className="page route" id="route-page">
      <header className="page-header">
        <h1>Route</h1>
        <p className="muted">
          Describe a task: Switchyard classifies it, picks the best model within your budget and
          says why, or splits it into a plan or a swarm of steps, each with its own model.
        </p>
      </header>

      <RouteForm input={input} onChange={setInput} onRun={(a) => void run(a)} busy={busy} />

      {error && (
        <div className="card error-card" id="route-error">
          <p className="error">{error}</p>
          {!input.anyProvider && (
            <p className="muted small">
              Without keys only local and OpenRouter models qualify. Turn on “Any provider” to rank
              the whole catalog, or add a key on the Keys page.
            </p>
          )}
        </div>
      )}

      {nothingYet && !error && (
        <div className="card route-empty">
          <p className="muted">
            <strong>Pick</strong> finds one model and explains the numbers behind it.{" "}
            <strong>Recommend</strong> lists several from different providers. <strong>Plan</strong>{" "}
            splits the task into steps run in order; <strong>Swarm</strong> draws them as a graph so
            independent steps run side by side.
          </p>
        </div>
      )}

      {results.pick && (
        <PickCard
          answer={results.pick}
          rating={results.pickRating}
          ratingBusy={ratingBusy}
          onRate={(r) => void ratePick(r)}
        />
      )}
      {results.recommend && (
        <RecommendCard
          models={results.recommend.recommendation.models}
          classification={results.recommend.classification}
          qualified={results.recommend.recommendation.qualified}
          note={describeRejections(
            results.recommend.recommendation.rejected,
            results.recommend.recommendation.category,
          )}
        />
      )}
      {results.plan && (
        <PlanView
          plan={results.plan.plan}
          issues={results.plan.issues}
          knownModels={knownModels}
          onEdit={(next) => void edit(next)}
          rechecking={rechecking}
          editError={editError}
          footer={() => (
            <div className="launch-row">
              <button
                type="button"
                className="primary"
                id="route-launch"
                disabled={runBlockers > 0 || rechecking}
                onClick={() => {
                  const plan = results.plan?.plan;
                  if (!plan) return;
                  openLaunchForm({ task: plan.task, mode: plan.mode, budget: input.budget, plan });
                }}
              >
                Launch…
              </button>
              {runBlockers > 0 ? (
                <span className="error small">
                  {runBlockers} problem{runBlockers === 1 ? "" : "s"} to fix before a run can start.
                </span>
              ) : (
                <span className="muted small">
                  Opens the Runs launch form with this{" "}
                  {results.plan?.plan.mode === "swarm" ? "swarm" : "plan"}: set the USD cap and
                  limits, then launch.
                </span>
              )}
            </div>
          )}
        />
      )}

      {learning && <LearningSummary savings={learning.savings} id="route-learning-savings" />}
      <PastPicks
        picks={past}
        error={pastError}
        onRate={(p, r) => void ratePast(p, r)}
        onRetry={() => void loadPast()}
      />
    </section>
  );
}
