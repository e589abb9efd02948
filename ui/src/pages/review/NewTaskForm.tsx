import { useEffect, useState } from "react";
import { NumberField, PresetSelect, RepoField, useRepoProbe } from "../../components/fields";
import {
  COMPARE_WORKERS,
  catalogIpc,
  describeError,
  ipc,
  keysIpc,
  type RolePreset,
  reviewIpc,
  rolesIpc,
} from "../../ipc";
import { reviewHash } from "./route";
import { WorkerPicker } from "./WorkerPicker";
import { formProblem, lines, modelIdPrefixes, type WorkerOption, workerOptions } from "./workers";

/** Repository, base, task, worker(s), verification, locks, timeout and role preset. */
export function NewTaskForm() {
  const [repo, setRepo] = useState("");
  const [task, setTask] = useState("");
  const [options, setOptions] = useState<WorkerOption[]>(() => workerOptions([], []));
  const [prefixes, setPrefixes] = useState<string[]>([]);
  const [compare, setCompare] = useState(false);
  const [workers, setWorkers] = useState<string[]>([""]);
  const [verify, setVerify] = useState("");
  const [verifyEdited, setVerifyEdited] = useState(false);
  const [lock, setLock] = useState("");
  const [timeout, setTimeoutText] = useState("");
  const [allowNetwork, setAllowNetwork] = useState(false);
  const [selfReview, setSelfReview] = useState(false);
  const [presets, setPresets] = useState<RolePreset[]>([]);
  const [preset, setPreset] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let gone = false;
    void (async () => {
      const [models, report, saved, providers] = await Promise.all([
        catalogIpc.listModels({}).catch(() => []),
        ipc.lastDoctorReport().catch(() => null),
        rolesIpc.presets().catch(() => []),
        keysIpc.providers().catch(() => []),
      ]);
      if (gone) return;
      setOptions(workerOptions(models, report?.workerClis ?? []));
      setPresets(saved);
      setPrefixes(modelIdPrefixes(providers));
    })();
    return () => {
      gone = true;
    };
  }, []);

  const repoProbe = useRepoProbe((_path, found) => {
    if (!verifyEdited) setVerify(found.verify.join("\n"));
  });
  const probe = repoProbe.probe;

  const chosen = workers.map((w) => w.trim()).filter(Boolean);
  const problem = formProblem({ repo, task, workers: chosen, compare, timeout });

  const submit = async () => {
    if (problem) return;
    setBusy(true);
    setError(null);
    const request = {
      repo: repo.trim(),
      task: task.trim(),
      worker: chosen[0] ?? "",
      verify: lines(verify),
      lock: lines(lock),
      timeoutSecs: timeout.trim() === "" ? null : Number(timeout.trim()),
      preset: preset === "" ? null : preset,
      allowNetwork,
      selfReview,
    };
    try {
      if (compare) {
        const group = await reviewIpc.startCompare(request, chosen);
        window.location.hash = reviewHash({ view: "compare", id: group.id });
      } else {
        const started = await reviewIpc.start(request);
        window.location.hash = reviewHash({ view: "attempt", id: started.id });
      }
    } catch (e) {
      setError(describeError(e).message);
      setBusy(false);
    }
  };

  const setWorker = (i: number, value: string) =>
    setWorkers(workers.map((w, j) => (j === i ? value : w)));

  return (
    <form
      className="card new-task form-page"
      id="new-task-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <RepoField
        prefix="task"
        label="Repository"
        value={repo}
        onChange={setRepo}
        repo={repoProbe}
      />

      <div className="form-row">
        <label htmlFor="task-text">Task</label>
        <textarea id="task-text" rows={5} value={task} onChange={(e) => setTask(e.target.value)} />
      </div>

      <div className="form-row">
        <label className="check-row">
          <input
            type="checkbox"
            id="task-compare"
            checked={compare}
            onChange={(e) => {
              setCompare(e.target.checked);
              setWorkers(e.target.checked ? [workers[0] ?? "", ""] : [workers[0] ?? ""]);
            }}
          />{" "}
          Compare: send the same task to {COMPARE_WORKERS.min}–{COMPARE_WORKERS.max} workers
        </label>
        {workers.map((w, i) => (
          <WorkerPicker
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            key={i}
            index={i}
            value={w}
            options={options}
            prefixes={prefixes}
            onChange={(v) => setWorker(i, v)}
            onRemove={
              compare && workers.length > COMPARE_WORKERS.min
                ? () => setWorkers(workers.filter((_, j) => j !== i))
                : undefined
            }
          />
        ))}
        {compare && workers.length < COMPARE_WORKERS.max && (
          <button
            type="button"
            className="ghost"
            id="task-add-worker"
            onClick={() => setWorkers([...workers, ""])}
          >
            Add a worker
          </button>
        )}
      </div>

      <div className="form-row">
        <label htmlFor="task-verify">Verification commands (one per line, run by Switchyard)</label>
        <textarea
          id="task-verify"
          rows={2}
          value={verify}
          placeholder="e.g. cargo test"
          onChange={(e) => {
            setVerify(e.target.value);
            setVerifyEdited(true);
          }}
        />
        {lines(verify).length === 0 && (
          <p className="small warn-text" id="task-verify-none">
            {probe && probe.verify.length === 0
              ? "No test command was found in this repository. "
              : ""}
            Without a command Switchyard runs no tests of its own: the verification gate passes with
            nothing checked.
          </p>
        )}
      </div>
      <div className="form-grid">
        <div className="form-row">
          <label htmlFor="task-lock">Extra locked globs (one per line)</label>
          <textarea
            id="task-lock"
            rows={2}
            value={lock}
            onChange={(e) => setLock(e.target.value)}
          />
        </div>
        <div className="form-row">
          <NumberField
            id="task-timeout"
            label="Timeout (seconds)"
            value={timeout}
            placeholder="default"
            onChange={setTimeoutText}
          />
          <PresetSelect id="task-preset" value={preset} presets={presets} onChange={setPreset} />
        </div>
        <div className="form-row">
          <label className="check">
            <input
              type="checkbox"
              id="task-allow-network"
              checked={allowNetwork}
              onChange={(e) => setAllowNetwork(e.target.checked)}
            />{" "}
            Allow network for the worker and the verification (otherwise an <code>exec:</code>{" "}
            worker and verification have none, and an agent CLI reaches only its provider)
          </label>
        </div>
        <div className="form-row">
          <label className="check">
            <input
              type="checkbox"
              id="task-self-review"
              checked={selfReview}
              onChange={(e) => setSelfReview(e.target.checked)}
            />{" "}
            Ask for a self-review: after verification the worker's model re-reads its change and
            lists risks, files touched and tests added, shown beside the gates (model workers; one
            more call, added to the cost)
          </label>
        </div>
      </div>
      <p className="muted small">
        The worker runs in a sandbox, in its own worktree on a <code>switchyard/…</code> branch: it
        can write only there and in a private temp folder, your repository's git directory and your
        home are read-only to it, and it has no push rights and no keys but its own provider's.
      </p>
      {error && (
        <p className="error" id="task-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        {problem && (
          <span className="muted small" id="task-problem">
            {problem}
          </span>
        )}
        <button
          type="submit"
          className="primary"
          id="task-start"
          disabled={busy || problem !== null}
        >
          {compare ? `Start ${chosen.length} attempts` : "Start attempt"}
        </button>
      </div>
    </form>
  );
}
