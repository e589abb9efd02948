import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CapturedDiff, FileChange } from "../../../ipc";
import { capturedDiff, file, hunk } from "../testdata";
import { DeferredNote } from "./DeferredNote";
import { DiffPane } from "./DiffPane";
import type { DiffRendererProps } from "./DiffRenderer";
import { withLoaded } from "./deferred";

// The real renderer draws into shadow roots with layout jsdom lacks; this one shows what
// DiffPane hands it: each file's drawn line count, and the deferred note the real one puts in
// each header (always "in view" here).
vi.mock("./DiffRenderer", async () => {
  const { DeferredNote: Note } = await import("./DeferredNote");
  const { forwardRef } = await import("react");
  return {
    DiffRenderer: forwardRef<unknown, DiffRendererProps>(function Fake(props, _ref) {
      return (
        <ul>
          {props.diff.files.map((f) => (
            <li key={f.path} data-file={f.path}>
              {f.path}: {f.hunks.flatMap((h) => h.lines).length} lines
              {f.hunksDeferred && (
                <Note
                  path={f.path}
                  entry={props.deferred?.get(f.path)}
                  open
                  onNeed={props.onNeedFile}
                />
              )}
            </li>
          ))}
        </ul>
      );
    }),
  };
});

afterEach(cleanup);

function full(path: string, n: number): FileChange {
  const lines: Array<[" " | "+" | "-", string]> = [];
  for (let i = 0; i < n; i += 1) lines.push(["+", `line ${i}`]);
  return file(path, { hunks: [hunk(1, lines)] });
}

function deferredOf(f: FileChange): FileChange {
  return { ...f, hunks: [], hunksDeferred: true };
}

describe("a diff whose later files are deferred", () => {
  it("loads each deferred file once when its header shows, and draws its lines", async () => {
    const a = full("a.rs", 3);
    const b = full("b.rs", 5);
    const diff: CapturedDiff = capturedDiff([a, deferredOf(b)]);
    const loadFile = vi.fn(async (path: string) => {
      expect(path).toBe("b.rs");
      return b;
    });
    render(<DiffPane diff={diff} loadFile={loadFile} />);
    expect(await screen.findByText("a.rs: 3 lines")).toBeTruthy();
    expect(await screen.findByText("b.rs: 5 lines")).toBeTruthy();
    expect(loadFile).toHaveBeenCalledTimes(1);
    // Selecting it in the tree again does not fetch it again.
    fireEvent.click(screen.getByRole("button", { name: /b\.rs/ }));
    expect(loadFile).toHaveBeenCalledTimes(1);
  });

  it("shows a placeholder while loading and the error in place, then retries", async () => {
    const b = full("b.rs", 2);
    let fail = true;
    let release: (() => void) | null = null;
    const loadFile = vi.fn(
      (_path: string) =>
        new Promise<FileChange>((resolve, reject) => {
          release = () => (fail ? reject(new Error("disk gone")) : resolve(b));
        }),
    );
    render(<DiffPane diff={capturedDiff([full("a.rs", 1), deferredOf(b)])} loadFile={loadFile} />);
    expect(await screen.findByText("loading lines…")).toBeTruthy();
    expect(screen.getByText("b.rs: 0 lines")).toBeTruthy();
    await act(async () => release?.());
    expect(await screen.findByText(/could not load: disk gone/)).toBeTruthy();
    fail = false;
    fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    await act(async () => release?.());
    await waitFor(() => expect(screen.getByText("b.rs: 2 lines")).toBeTruthy());
    expect(loadFile).toHaveBeenCalledTimes(2);
  });
});

describe("withLoaded", () => {
  it("replaces only deferred files that finished loading", () => {
    const a = full("a.rs", 1);
    const b = full("b.rs", 4);
    const c = full("c.rs", 2);
    const diff = capturedDiff([a, deferredOf(b), deferredOf(c)]);
    expect(withLoaded(diff, new Map())).toBe(diff);
    const merged = withLoaded(
      diff,
      new Map([
        ["b.rs", { state: "done", file: b }],
        ["c.rs", { state: "loading" }],
        ["a.rs", { state: "done", file: full("a.rs", 9) }],
      ]),
    );
    expect(merged.files.map((f) => f.hunks.flatMap((h) => h.lines).length)).toEqual([1, 4, 0]);
    expect(merged.files[2]?.hunksDeferred).toBe(true);
  });
});

describe("DeferredNote", () => {
  it("asks only when open", () => {
    const onNeed = vi.fn();
    const { rerender } = render(
      <DeferredNote path="x" entry={undefined} open={false} onNeed={onNeed} />,
    );
    expect(onNeed).not.toHaveBeenCalled();
    rerender(<DeferredNote path="x" entry={undefined} open onNeed={onNeed} />);
    expect(onNeed).toHaveBeenCalledWith("x");
  });
});
