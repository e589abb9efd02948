import { hashFor } from "../../nav";
import { NEEDS, parseMaxPrice } from "./format";
import { useBudgetTiers } from "./tiers";
import type { BudgetTier } from "./types";

/** What the user asked for; the page turns it into the engine's requests. */
export interface RouteInput {
  task: string;
  budget: BudgetTier;
  maxPrice: string;
  needs: string[];
  anyProvider: boolean;
  count: number;
  /** Ask a model to propose the plan (the rule-based planner is the fallback). */
  modelPlanner: boolean;
}

export const EMPTY_INPUT: RouteInput = {
  task: "",
  budget: "medium",
  maxPrice: "",
  needs: [],
  anyProvider: false,
  count: 3,
  modelPlanner: false,
};

export type RouteAction = "pick" | "recommend" | "plan" | "swarm";

interface Props {
  input: RouteInput;
  onChange: (input: RouteInput) => void;
  onRun: (action: RouteAction) => void;
  /** The action in flight, if any. */
  busy: RouteAction | null;
}

/** The task box, budget, needs and provider scope, with the four actions. */
export function RouteForm({ input, onChange, onRun, busy }: Props) {
  const set = (patch: Partial<RouteInput>) => onChange({ ...input, ...patch });
  const tiers = useBudgetTiers();
  const maxPriceBad = parseMaxPrice(input.maxPrice) === undefined;
  const blocked = input.task.trim() === "" || maxPriceBad || busy !== null;
  const label = (action: RouteAction, idle: string, running: string) =>
    busy === action ? running : idle;

  return (
    <form
      className="card route-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!blocked) onRun("pick");
      }}
    >
      <label className="field-label" htmlFor="route-task">
        Task
      </label>
      <textarea
        id="route-task"
        rows={4}
        placeholder="e.g. Write a Rust function that parses RFC 3339 timestamps, then add unit tests"
        value={input.task}
        onChange={(e) => set({ task: e.target.value })}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.metaKey || e.ctrlKey) && !blocked) {
            e.preventDefault();
            onRun("pick");
          }
        }}
      />

      <div className="route-options">
        <div className="option-group">
          <span className="field-label">Budget</span>
          <fieldset className="segmented" aria-label="Budget">
            {tiers.map((b) => (
              <button
                key={b.tier}
                type="button"
                aria-pressed={input.budget === b.tier}
                className={input.budget === b.tier ? "on" : undefined}
                data-budget={b.tier}
                title={b.band}
                onClick={() => set({ budget: b.tier })}
              >
                {b.label}
              </button>
            ))}
          </fieldset>
          <span className="muted small">{tiers.find((b) => b.tier === input.budget)?.band}</span>
        </div>

        <div className="option-group">
          <label className="field-label" htmlFor="route-max-price">
            Max price
          </label>
          <div className="price-input">
            <span>$</span>
            <input
              id="route-max-price"
              type="text"
              inputMode="decimal"
              placeholder="none"
              value={input.maxPrice}
              aria-invalid={maxPriceBad}
              onChange={(e) => set({ maxPrice: e.target.value })}
            />
            <span className="muted small">/M blended</span>
          </div>
          {maxPriceBad && <span className="error small">A price such as 2.5</span>}
        </div>

        <fieldset className="option-group needs">
          <legend className="field-label">Needs</legend>
          <div className="checks-row">
            {NEEDS.map((need) => (
              <label key={need.id} className="check">
                <input
                  type="checkbox"
                  data-need={need.id}
                  checked={input.needs.includes(need.id)}
                  onChange={(e) =>
                    set({
                      needs: e.target.checked
                        ? [...input.needs, need.id]
                        : input.needs.filter((n) => n !== need.id),
                    })
                  }
                />
                {need.label}
              </label>
            ))}
          </div>
        </fieldset>
      </div>

      <div className="any-provider">
        <label className="switch" id="route-any-provider-label">
          <input
            id="route-any-provider"
            type="checkbox"
            checked={input.anyProvider}
            onChange={(e) => set({ anyProvider: e.target.checked })}
          />
          <span className="switch-track" aria-hidden="true" />
          Any provider
        </label>
        <span className="muted small">
          {input.anyProvider
            ? "Ranking the whole catalog, whether or not you have a key for it."
            : "Only models you can use are picked: a provider key, a local endpoint, or OpenRouter."}{" "}
          <a href={hashFor("keys")}>Manage keys</a>
        </span>
      </div>

      <div className="route-actions">
        <button type="submit" className="primary" id="route-pick" disabled={blocked}>
          {label("pick", "Pick", "Picking…")}
        </button>
        <span className="recommend-group">
          <button
            type="button"
            id="route-recommend"
            disabled={blocked}
            onClick={() => onRun("recommend")}
          >
            {label("recommend", "Recommend", "Ranking…")}
          </button>
          <select
            id="route-count"
            aria-label="How many to recommend"
            value={input.count}
            onChange={(e) => set({ count: Number(e.target.value) })}
          >
            {Array.from({ length: 10 }, (_, i) => i + 1).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </span>
        <span className="grow" />
        <label
          className="check small"
          title="A model proposes the steps; invalid answers fall back to the rule-based planner, which says so"
        >
          <input
            type="checkbox"
            id="route-model-planner"
            checked={input.modelPlanner}
            onChange={(e) => set({ modelPlanner: e.target.checked })}
          />
          Ask a model to plan
        </label>
        <button type="button" id="route-plan" disabled={blocked} onClick={() => onRun("plan")}>
          {label("plan", "Plan", "Planning…")}
        </button>
        <button type="button" id="route-swarm" disabled={blocked} onClick={() => onRun("swarm")}>
          {label("swarm", "Swarm", "Planning…")}
        </button>
      </div>
    </form>
  );
}
