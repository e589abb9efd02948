import { useCallback, useEffect, useRef, useState } from "react";
import { NumberField, PresetSelect, RepoField, useRepoProbe } from "../../components/fields";
import { catalogIpc, describeError, ipc, keysIpc, rolesIpc } from "../../ipc";
import { WorkerPicker } from "../review/WorkerPicker";
import { modelIdPrefixes, type WorkerOption, workerOptions } from "../review/workers";
import { PlanView } from "../route/PlanView";
import { useBudgetTiers } from "../route/tiers";
import { routeIpc, runsIpc } from "./api";
import { formatCost, MODES } from "./format";
import { clearLaunchPrefill, type LaunchPrefill, peekLaunchPrefill } from "./handoff";
import {
  EMPTY_LAUNCH,
  editsFromPreview,
  isCode,
  type LaunchEdits,
  type LaunchInput,
  launchOptions,
  launchProblem,
} from "./launch";
import { ModelListEditor } from "./ModelListEditor";
import { PreviewCard } from "./PreviewCard";
import { runsHash } from "./route";
import type { Plan, PlanIssue, RolePreset, RunDefaults, RunPreview } from "./types";

// What the user typed survives leaving the page and coming back.
let kept: LaunchInput = EMPTY_LAUNCH;

/**
 * The plan check's problems that hold for a run. The Route page's check also flags models
 * missing from the catalog; a run calls any model a provider serves (`provider:model`), and
 * the run preview says which of them cannot be called.
 */
function runIssues(issues: readonly PlanIssue[]): PlanIssue[] {
  return issues.filter((i) => i.code !== "unknownModel");
}

/** Inputs whose change makes routing choose again (the preview's picks no longer apply). */
const RESOLVING: readonly (keyof LaunchInput)[] = ["mode", "budget", "repo", "worker", "members"];

/** How the form opens: what was kept, or the launch prepared on the Route page. */
interface Opening {
  prefill: LaunchPrefill | null;
  input: LaunchInput;
  edits: LaunchEdits;
}

function opening(prefill: LaunchPrefill | null): Opening {
  if (!prefill) return { prefill, input: kept, edits: {} };
  return {
    prefill,
    input: { ...kept, task: prefill.task, mode: prefill.mode, budget: prefill.budget, repo: "" },
    edits: prefill.plan ? { plan: prefill.plan } : {},
  };
}

/** Task, mode, budget, USD cap, role preset, repository and verification for code, worker,
 * limits and pause points; then the preview to edit, and Launch. */
export function LaunchForm() {
  const [opened] = useState(() => opening(peekLaunchPrefill()));
  const [input, setInput] = useState<LaunchInput>(opened.input);
  const tiers = useBudgetTiers();
  const [defaults, setDefaults] = useState<RunDefaults | null>(null);
  const [presets, setPresets] = useState<RolePreset[]>([]);
  const [known, setKnown] = useState<string[]>([]);
  const [workers, setWorkers] = useState<WorkerOption[]>(() => workerOptions([], []));
  const [prefixes, setPrefixes] = useState<string[]>([]);
  const [preview, setPreview] = useState<RunPreview | null>(null);
  const [edits, setEdits] = useState<LaunchEdits>(opened.edits);
  const [issues, setIssues] = useState<PlanIssue[]>([]);
  const [draftPlan, setDraftPlan] = useState<Plan | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [launching, setLaunching] = useState(false);
  const [launchError, setLaunchError] = useState<string | null>(null);
  const asked = useRef(0);

  useEffect(() => {
    kept = input;
  }, [input]);

  useEffect(() => {
    let gone = false;
    void (async () => {
      const [found, saved, models, report, providers] = await Promise.all([
        runsIpc.defaults().catch(() => null),
        rolesIpc.presets().catch(() => []),
        catalogIpc.listModels({}).catch(() => []),
        ipc.lastDoctorReport().catch(() => null),
        keysIpc.providers().catch(() => []),
      ]);
      if (gone) return;
      setDefaults(found);
      setPresets(saved);
      const custom = modelIdPrefixes(providers);
      setPrefixes(custom);
      setKnown([...custom, ...models.map((m) => m.id)]);
      setWorkers(workerOptions(models, report?.workerClis ?? []));
    })();
    return () => {
      gone = true;
    };
  }, []);

  /** Previews `request` (the latest ask wins); the preview's choices become the edits. */
  const runPreview = useCallback(async (from: LaunchInput, withEdits: LaunchEdits) => {
    const ask = ++asked.current;
    setPreviewing(true);
    setPreviewError(null);
    try {
      const found = await runsIpc.preview(launchOptions(from, withEdits));
      if (ask !== asked.current) return;
      setPreview(found);
      setEdits(editsFromPreview(found));
      setDraftPlan(null);
      if (found.plan) {
        const check = await routeIpc.revalidate(found.plan);
        if (ask === asked.current) setIssues(runIssues(check.issues));
      } else {
        setIssues([]);
      }
    } catch (e) {
      if (ask === asked.current) setPreviewError(describeError(e).message);
    } finally {
      if (ask === asked.current) setPreviewing(false);
    }
  }, []);

  useEffect(() => {
    const { prefill } = opened;
    clearLaunchPrefill(prefill);
    if (!prefill) return;
    if (prefill.plan) {
      routeIpc
        .revalidate(prefill.plan)
        .then((check) => setIssues(runIssues(check.issues)))
        .catch(() => {});
    }
    void runPreview(opened.input, opened.edits);
  }, [opened, runPreview]);

  const set = (patch: Partial<LaunchInput>) => {
    const next = { ...input, ...patch };
    setInput(next);
    if (RESOLVING.some((key) => key in patch && patch[key] !== input[key])) {
      // Routing would choose differently: the preview no longer says what would run.
      setPreview(null);
      setEdits({});
      setIssues([]);
      setDraftPlan(null);
      setPreviewError(null);
    }
  };

  const edit = async (next: LaunchEdits) => {
    // Kept even when the engine refuses the preview: the user goes on from their edit.
    setEdits(next);
    if (next.plan && next.plan !== edits.plan) {
      // The engine recomputes the plan's edges and waves and names its problems first.
      setPreviewing(true);
      try {
        const check = await routeIpc.revalidate(next.plan);
        const issues = runIssues(check.issues);
        setIssues(issues);
        if (issues.some((i) => i.severity === "error")) {
          setDraftPlan(check.plan);
          setPreviewError("Fix the plan's problems before launching.");
          setPreviewing(false);
          return;
        }
        setEdits({ ...next, plan: check.plan });
        setDraftPlan(null);
        await runPreview(input, { ...next, plan: check.plan });
      } catch (e) {
        setPreviewError(describeError(e).message);
        setPreviewing(false);
      }
      return;
    }
    await runPreview(input, next);
  };

  const repoProbe = useRepoProbe((path, found) => {
    if (input.verify.trim() === "") set({ repo: path, verify: found.verify.join("\n") });
  });

  const launch = async () => {
    setLaunching(true);
    setLaunchError(null);
    try {
      const started = await runsIpc.start(launchOptions(input, edits));
      kept = { ...EMPTY_LAUNCH, mode: input.mode, budget: input.budget };
      window.location.hash = runsHash({ view: "run", id: started.id });
    } catch (e) {
      setLaunchError(describeError(e).message);
      setLaunching(false);
    }
  };

  const problem = launchProblem(input);
  const code = isCode(input);
  const planBlocked = issues.some((i) => i.severity === "error") || draftPlan !== null;
  const canLaunch =
    preview !== null && problem === null && !previewing && !launching && !planBlocked;
  const limits = defaults?.limits;

  return (
    <div className="launch-layout">
      <form
        className="card launch-form"
        id="run-launch-form"
        data-busy={previewing || launching}
        onSubmit={(e) => {
          e.preventDefault();
          if (problem === null) void runPreview(input, edits);
        }}
      >
        <div className="form-row">
          <label htmlFor="run-task">Task</label>
          <textarea
            id="run-task"
            rows={4}
            value={input.task}
            placeholder="e.g. Explain how Rust's borrow checker handles two-phase borrows"
            onChange={(e) => set({ task: e.target.value })}
          />
        </div>

        <div className="form-row">
          <span className="field-label">Mode</span>
          <fieldset className="segmented mode-picker" aria-label="Mode" id="run-mode">
            {MODES.map((m) => (
              <button
                key={m.id}
                type="button"
                className={input.mode === m.id ? "on" : undefined}
                aria-pressed={input.mode === m.id}
                data-mode={m.id}
                title={m.summary}
                onClick={() => set({ mode: m.id })}
              >
                {m.title}
              </button>
            ))}
          </fieldset>
          <p className="muted small">{MODES.find((m) => m.id === input.mode)?.summary}</p>
        </div>

        <div className="form-grid">
          <div className="form-row">
            <span className="field-label">Budget</span>
            <fieldset className="segmented" aria-label="Budget" id="run-budget">
              {tiers.map((b) => (
                <button
                  key={b.tier}
                  type="button"
                  className={input.budget === b.tier ? "on" : undefined}
                  aria-pressed={input.budget === b.tier}
                  data-budget={b.tier}
                  title={b.band}
                  onClick={() => set({ budget: b.tier })}
                >
                  {b.label}
                </button>
              ))}
            </fieldset>
          </div>
          <div className="form-row">
            <NumberField
              id="run-max-usd"
              label="USD cap (never exceeded)"
              value={input.maxUsd}
              placeholder={limits ? `default ${formatCost(limits.maxUsd)}` : "default"}
              decimal
              onChange={(maxUsd) => set({ maxUsd })}
            />
          </div>
          <div className="form-row">
            <PresetSelect
              id="run-preset"
              value={input.preset}
              presets={presets}
              onChange={(preset) => set({ preset })}
            />
          </div>
        </div>

        {input.mode === "collective" && (
          <div className="form-row narrow">
            <NumberField
              id="run-members"
              label="Members routing recommends"
              value={input.members}
              placeholder="3"
              onChange={(members) => set({ members })}
            />
          </div>
        )}
        {(input.mode === "plan" || input.mode === "swarm") && (
          <div className="form-row">
            <label htmlFor="run-step-model">Model for steps without one (optional)</label>
            <input
              id="run-step-model"
              type="text"
              className="mono"
              list="run-judge-models"
              value={input.stepModel}
              placeholder="provider:model — the plan's own picks stay"
              onChange={(e) => set({ stepModel: e.target.value })}
              onBlur={() => {
                // The preview (or the plan waiting for models) is checked again with it.
                if (edits.plan && draftPlan === null) void runPreview(input, edits);
              }}
            />
          </div>
        )}
        {input.mode === "cascade" && !code && (
          <div className="form-grid">
            <div className="form-row">
              <label htmlFor="run-judge-model">Judge model (optional)</label>
              <input
                id="run-judge-model"
                type="text"
                className="mono"
                list="run-judge-models"
                value={input.judgeModel}
                placeholder="escalate when it scores an answer low"
                onChange={(e) => set({ judgeModel: e.target.value })}
              />
            </div>
            <div className="form-row">
              <NumberField
                id="run-judge-threshold"
                label="Escalate below score (1–10)"
                value={input.judgeThreshold}
                disabled={input.judgeModel.trim() === ""}
                onChange={(judgeThreshold) => set({ judgeThreshold })}
              />
            </div>
          </div>
        )}

        {!code && (
          <details className="launch-section" open={input.schema.trim() !== "" || undefined}>
            <summary>Structured output: a JSON Schema the result must match</summary>
            <div className="form-row">
              <label htmlFor="run-schema">JSON Schema (optional)</label>
              <textarea
                id="run-schema"
                className="mono"
                rows={4}
                value={input.schema}
                placeholder='{"type": "object", "required": ["summary"]}'
                onChange={(e) => set({ schema: e.target.value })}
              />
              <p className="small muted">
                The answer's JSON is taken from a code fence or the prose around it and checked; one
                repair request follows a mismatch, and a cascade escalates when it still fails.
              </p>
            </div>
          </details>
        )}

        <details className="launch-section" open={code || undefined}>
          <summary>Code: a repository, its verification and a worker</summary>
          <RepoField
            prefix="run"
            label="Repository (leave empty for a text run)"
            value={input.repo}
            onChange={(repo) => set({ repo })}
            repo={repoProbe}
          />
          {code && (
            <>
              <div className="form-row">
                <label htmlFor="run-verify">Verification commands (one per line)</label>
                <textarea
                  id="run-verify"
                  rows={2}
                  value={input.verify}
                  placeholder="e.g. cargo test"
                  onChange={(e) => set({ verify: e.target.value })}
                />
              </div>
              <div className="form-row">
                <span className="field-label">Worker</span>
                <WorkerPicker
                  index={0}
                  idPrefix="run"
                  emptyLabel="The model worker, with each node's model"
                  value={input.worker}
                  options={workers}
                  prefixes={prefixes}
                  onChange={(worker) => set({ worker })}
                />
              </div>
            </>
          )}
        </details>

        <details className="launch-section">
          <summary>Limits and pause points</summary>
          <div className="form-grid">
            <div className="form-row">
              <NumberField
                id="run-parallel"
                label="Max parallel nodes"
                value={input.maxParallelNodes}
                placeholder={limits ? String(limits.maxParallelNodes) : ""}
                onChange={(maxParallelNodes) => set({ maxParallelNodes })}
              />
            </div>
            <div className="form-row">
              <NumberField
                id="run-node-timeout"
                label="Node timeout (s)"
                value={input.nodeTimeoutS}
                placeholder={
                  limits ? String(code ? limits.codeNodeTimeoutS : limits.nodeTimeoutS) : ""
                }
                onChange={(nodeTimeoutS) => set({ nodeTimeoutS })}
              />
            </div>
            <div className="form-row">
              <NumberField
                id="run-run-timeout"
                label="Run timeout (s)"
                value={input.runTimeoutS}
                placeholder={limits ? String(limits.runTimeoutS) : ""}
                onChange={(runTimeoutS) => set({ runTimeoutS })}
              />
            </div>
          </div>
          <label className="check-row">
            <input
              type="checkbox"
              id="run-pause-plan"
              checked={input.pauseAfterPlan}
              onChange={(e) => set({ pauseAfterPlan: e.target.checked })}
            />
            Pause after planning (nothing runs until you resume it)
          </label>
          <label className="check-row">
            <input
              type="checkbox"
              id="run-pause-integration"
              checked={input.pauseBeforeIntegration}
              disabled={!code}
              onChange={(e) => set({ pauseBeforeIntegration: e.target.checked })}
            />
            Pause before integrating the run's branch (code swarms)
          </label>
          <label className="check-row">
            <input
              type="checkbox"
              id="run-allow-network"
              checked={input.allowNetwork === true}
              disabled={!code}
              onChange={(e) => set({ allowNetwork: e.target.checked })}
            />
            Allow network for code nodes' workers and verification (otherwise an exec: worker and
            verification have none, and an agent CLI reaches only its provider)
          </label>
          <label className="check-row">
            <input
              type="checkbox"
              id="run-self-review"
              checked={input.selfReview === true}
              disabled={!code}
              onChange={(e) => set({ selfReview: e.target.checked })}
            />
            Self-review: each code node's model re-reads its verified change (model workers; one
            more call each, reserved under the cap)
          </label>
        </details>

        <datalist id="run-judge-models">
          {known.slice(0, 200).map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>

        <div className="form-actions">
          {problem && (
            <span className="muted small" id="run-problem">
              {problem}
            </span>
          )}
          <span className="grow" />
          <button
            type="submit"
            className={preview ? "primary-ghost" : "primary"}
            id="run-preview"
            disabled={problem !== null || previewing}
          >
            {previewing ? "Previewing…" : preview ? "Preview again" : "Preview"}
          </button>
        </div>
        {!preview && previewError && (
          <p className="error" id="run-preview-error">
            {previewError}
          </p>
        )}
      </form>

      {!preview &&
        (input.mode === "plan" || input.mode === "swarm") &&
        (draftPlan ?? edits.plan) && (
          <div className="card" id="run-plan-draft">
            <h2>Fix the plan</h2>
            <p className="muted small">
              The engine cannot run this plan yet{previewError ? `: ${previewError}` : "."} Give
              each step a model (click it), or name a model for steps without one above.
            </p>
            <PlanView
              plan={(draftPlan ?? edits.plan) as Plan}
              issues={issues}
              knownModels={known}
              onEdit={(plan) => void edit({ ...edits, plan })}
              rechecking={previewing}
              editError={null}
            />
          </div>
        )}
      {!preview && previewError && input.mode !== "plan" && input.mode !== "swarm" && (
        <NameModels
          input={input}
          edits={edits}
          known={known}
          code={code}
          onChange={(next) => {
            setEdits(next);
            void runPreview(input, next);
          }}
        />
      )}

      {preview && (
        <PreviewCard
          preview={preview}
          edits={edits}
          issues={issues}
          draftPlan={draftPlan}
          code={code}
          known={known}
          busy={previewing}
          error={previewError}
          onEdit={(next) => void edit(next)}
          onReset={() => void runPreview(input, {})}
          launch={{
            allowed: canLaunch,
            busy: launching,
            error: launchError,
            pauses: input.pauseAfterPlan,
            onLaunch: () => void launch(),
          }}
        />
      )}
    </div>
  );
}

/** When routing found nothing to preview (no model fits, no key), the user names the models. */
function NameModels({
  input,
  edits,
  known,
  code,
  onChange,
}: {
  input: LaunchInput;
  edits: LaunchEdits;
  known: readonly string[];
  code: boolean;
  onChange: (edits: LaunchEdits) => void;
}) {
  const cascade = input.mode === "cascade";
  const rows =
    (cascade ? edits.ladder : edits.models) ?? (input.mode === "collective" ? ["", ""] : [""]);
  return (
    <div className="card" id="run-name-models">
      <h2>
        {cascade
          ? "Name the ladder"
          : input.mode === "collective"
            ? "Name the members"
            : "Name the model"}
      </h2>
      <p className="muted small">
        Routing could not choose for this task and budget. Name the models yourself
        {cascade ? ", cheapest first" : ""}: a catalog id, or <code>provider:model</code> for a
        custom endpoint or a local server.
      </p>
      <ModelListEditor
        kind={cascade ? "rung" : "member"}
        models={rows}
        min={1}
        max={cascade ? 6 : input.mode === "collective" ? (code ? 5 : 6) : 1}
        known={known}
        placeholder={code ? "model id or worker" : "provider:model"}
        onChange={(models) => {
          const named = models.map((m) => m.trim());
          onChange(cascade ? { ...edits, ladder: named } : { ...edits, models: named });
        }}
      />
    </div>
  );
}
