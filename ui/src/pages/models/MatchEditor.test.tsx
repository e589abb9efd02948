import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { MatchOverride, ModelCard, ModelDetail, SourceMatch } from "../../ipc";
import { card } from "./testdata";

const AUTO: SourceMatch = {
  source: "lmArena",
  name: "acme-coder-v2",
  rule: "normalizedName",
  primary: true,
};
const MANUAL: SourceMatch = {
  source: "liveBench",
  name: "acme-coder",
  rule: "manual",
  primary: true,
};
const base = card({ id: "acme/coder", matches: [AUTO, MANUAL] });

const overrides: MatchOverride[] = [];
const cleared: string[] = [];
let stored: ModelCard = base;

const detail = (card: ModelCard): ModelDetail => ({ card, breakdown: [] });

// A fake engine: applies corrections to the card's matches and returns the rebuilt model.
vi.mock("../../ipc", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../ipc")>();
  return {
    ...original,
    catalogIpc: {
      setMatchOverride: vi.fn(async (o: MatchOverride) => {
        overrides.push(o);
        const others = stored.matches.filter((m) => !(m.source === o.source && m.name === o.key));
        const known = o.key !== "no-such-record";
        stored = {
          ...stored,
          matches:
            o.action === "add" && known
              ? [...others, { source: o.source, name: o.key, rule: "manual", primary: true }]
              : others,
        };
        return detail(stored);
      }),
      clearMatchOverride: vi.fn(async (source: string, record: string) => {
        cleared.push(`${source}:${record}`);
        if (record === AUTO.name) {
          stored = { ...stored, matches: [...stored.matches, AUTO] };
        } else {
          stored = { ...stored, matches: stored.matches.filter((m) => m.name !== record) };
        }
        return true;
      }),
      getModel: vi.fn(async () => detail(stored)),
    },
  };
});

const { MatchEditor } = await import("./MatchEditor");

/** The drawer's part: shows whatever card the editor hands back. */
function Harness({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState<ModelCard>(base);
  return (
    <MatchEditor
      card={current}
      status={null}
      onDetail={(rebuilt) => setCurrent(rebuilt.card)}
      onChanged={onChanged}
    />
  );
}

afterEach(() => {
  cleanup();
  overrides.length = 0;
  cleared.length = 0;
  stored = base;
});

const records = () =>
  [...document.querySelectorAll("#model-matches tr[data-record]")].map((r) =>
    r.getAttribute("data-record"),
  );

describe("MatchEditor", () => {
  it("removes an automatic match with a stored correction, and undoes it", async () => {
    const onChanged = vi.fn();
    render(<Harness onChanged={onChanged} />);
    const row = document.querySelector(`tr[data-record='${AUTO.name}']`);
    fireEvent.click(row?.querySelector("button") as HTMLElement);
    await waitFor(() => expect(records()).toEqual([MANUAL.name]));
    expect(overrides).toEqual([
      { source: "lmArena", key: AUTO.name, modelId: "acme/coder", action: "remove" },
    ]);
    expect(onChanged).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByText("Undo"));
    await waitFor(() => expect(records()).toContain(AUTO.name));
    expect(cleared).toEqual([`lmArena:${AUTO.name}`]);
  });

  it("removes a match the user added by forgetting the correction", async () => {
    render(<Harness onChanged={() => {}} />);
    const row = document.querySelector(`tr[data-record='${MANUAL.name}']`);
    fireEvent.click(row?.querySelector("button") as HTMLElement);
    await waitFor(() => expect(records()).toEqual([AUTO.name]));
    expect(cleared).toEqual([`liveBench:${MANUAL.name}`]);
    expect(overrides).toEqual([]);
  });

  it("adds a match and says so when the source has no such record", async () => {
    render(<Harness onChanged={() => {}} />);
    const input = screen.getByLabelText("Record name in that source");
    fireEvent.change(screen.getByLabelText("Source"), { target: { value: "artificialAnalysis" } });
    fireEvent.change(input, { target: { value: "acme-coder-high" } });
    fireEvent.click(screen.getByText("Add"));
    await waitFor(() => expect(records()).toContain("acme-coder-high"));
    expect(overrides.at(-1)).toEqual({
      source: "artificialAnalysis",
      key: "acme-coder-high",
      modelId: "acme/coder",
      action: "add",
    });
    fireEvent.change(input, { target: { value: "no-such-record" } });
    fireEvent.click(screen.getByText("Add"));
    await waitFor(() => expect(screen.getByText(/has no record “no-such-record”/)).toBeTruthy());
  });
});
