import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { tinykeys } from "tinykeys";
import { type CapturedDiff, describeError, type FileChange, type LineComment } from "../../../ipc";
import { REVIEW_KEYS, single } from "../../../keys/shortcuts";
import { hunkStops, nextFile, nextStop, type Stop } from "./cursor";
import type { DiffRendererHandle, DiffStyle } from "./DiffRenderer";
import { type Deferred, withLoaded } from "./deferred";
import { FileTree } from "./FileTree";
import { collapseReason, lineCount } from "./model";

// The library loads on first use, like the Models page's chart.
const DiffRenderer = lazy(() =>
  import("./DiffRenderer").then((m) => ({ default: m.DiffRenderer })),
);

interface Props {
  diff: CapturedDiff;
  comments?: readonly LineComment[];
  /** Enables commenting: a click on a new-side line calls this. */
  onLineClick?: (path: string, line: number) => void;
  /** Compact: no file tree (the Compare view's columns). */
  compact?: boolean;
  /** Fetches one file's full change, for files the payload marked `hunksDeferred`. */
  loadFile?: (path: string) => Promise<FileChange>;
  /** Takes the Review page's keys (next/previous file and hunk, comment on the focused line). */
  keyboard?: boolean;
}

/** Rough pixel height of the rendered diff, so a small change does not sit in a tall empty box. */
function bodyHeight(diff: CapturedDiff, compact: boolean): string {
  let rows = 0;
  for (const file of diff.files) {
    const lines = file.hunksDeferred ? file.additions + file.deletions : lineCount(file);
    rows += 2.5 + (collapseReason(file.path) ? 0 : lines + file.hunks.length * 1.6);
  }
  const px = Math.max(compact ? 140 : 220, Math.round(rows * 20) + 40);
  return `min(${px}px, ${compact ? 55 : 70}vh)`;
}

/** File tree with +/− counts beside the unified or split diff of every file. */
export function DiffPane({
  diff: payload,
  comments = [],
  onLineClick,
  compact = false,
  loadFile,
  keyboard = false,
}: Props) {
  const [style, setStyle] = useState<DiffStyle>("unified");
  const [loaded, setLoaded] = useState<ReadonlyMap<string, Deferred>>(new Map());
  const loader = useRef(loadFile);
  loader.current = loadFile;
  // Loads belong to one captured diff: a new one starts over.
  const sha = payload.sha256;
  const started = useRef({ sha, paths: new Set<string>() });
  useEffect(() => {
    if (started.current.sha !== sha) {
      started.current = { sha, paths: new Set() };
      setLoaded(new Map());
    }
  }, [sha]);

  // Fetches a deferred file once (again after an error, when asked).
  const need = useCallback((path: string, retry = false) => {
    const load = loader.current;
    const mine = started.current;
    if (!load || (mine.paths.has(path) && !retry)) return;
    mine.paths.add(path);
    const put = (entry: Deferred) => {
      if (started.current === mine) setLoaded((prev) => new Map(prev).set(path, entry));
    };
    put({ state: "loading" });
    load(path).then(
      (file) => put({ state: "done", file }),
      (e: unknown) => put({ state: "error", message: describeError(e).message }),
    );
  }, []);
  const diff = useMemo(() => withLoaded(payload, loaded), [payload, loaded]);
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const [selected, setSelected] = useState<string | null>(null);
  const renderer = useRef<DiffRendererHandle>(null);

  const toggle = useCallback((path: string) => {
    setToggled((prev) => {
      const next = new Set(prev);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });
  }, []);

  const select = useCallback(
    (path: string) => {
      setSelected(path);
      need(path);
      renderer.current?.scrollToFile(path);
    },
    [need],
  );

  // The focused line: where `n`/`p` stopped, what `c` comments on.
  const [focus, setFocus] = useState<Stop | null>(null);
  const stops = useMemo(() => hunkStops(diff), [diff]);
  const keys = useRef({ diff, stops, focus, selected, select, onLineClick });
  keys.current = { diff, stops, focus, selected, select, onLineClick };
  useEffect(() => {
    if (!keyboard) return;
    const toFile = (by: 1 | -1) => {
      const { diff: d, focus: f, selected: s, select: go } = keys.current;
      const path = nextFile(d, f?.path ?? s, by);
      if (path) {
        go(path);
        setFocus({ path, line: 0 });
      }
    };
    const toHunk = (by: 1 | -1) => {
      const { stops: all, focus: f, selected: s } = keys.current;
      const at = f ?? (s ? { path: s, line: 0 } : null);
      const stop = nextStop(all, at, by);
      if (stop) {
        setFocus(stop);
        setSelected(stop.path);
        renderer.current?.focusLine(stop.path, stop.line);
      }
    };
    return tinykeys(window, {
      [REVIEW_KEYS.nextFile]: single(() => toFile(1)),
      [REVIEW_KEYS.previousFile]: single(() => toFile(-1)),
      [REVIEW_KEYS.nextHunk]: single(() => toHunk(1)),
      [REVIEW_KEYS.previousHunk]: single(() => toHunk(-1)),
      [REVIEW_KEYS.comment]: single((event) => {
        const { focus: f, onLineClick: comment } = keys.current;
        if (f && f.line > 0 && comment) {
          event.preventDefault();
          comment(f.path, f.line);
        }
      }),
    });
  }, [keyboard]);

  return (
    <div
      className={`diff-pane${compact ? " compact" : ""}`}
      data-diff-sha={diff.sha256}
      data-focus={focus && focus.line > 0 ? `${focus.path}:${focus.line}` : undefined}
    >
      <div className="diff-toolbar">
        <span className="diff-totals">
          {diff.files.length} {diff.files.length === 1 ? "file" : "files"}{" "}
          <span className="add">+{diff.additions}</span>{" "}
          <span className="del">−{diff.deletions}</span>
        </span>
        <span className="grow" />
        <fieldset className="segmented" aria-label="Diff layout">
          {(["unified", "split"] as const).map((s) => (
            <button
              key={s}
              type="button"
              className={style === s ? "active" : undefined}
              aria-pressed={style === s}
              data-diff-style={s}
              onClick={() => setStyle(s)}
            >
              {s === "unified" ? "Unified" : "Split"}
            </button>
          ))}
        </fieldset>
      </div>
      <div className="diff-body" style={{ height: bodyHeight(diff, compact) }}>
        {!compact && (
          <aside className="diff-tree">
            <FileTree files={diff.files} selected={selected} onSelect={select} />
          </aside>
        )}
        <div className="diff-view" id={compact ? undefined : "diff-view"}>
          {diff.files.length === 0 ? (
            <p className="muted empty-diff">The worker changed nothing.</p>
          ) : (
            <Suspense fallback={<p className="muted">Loading the diff viewer…</p>}>
              <DiffRenderer
                ref={renderer}
                diff={diff}
                style={style}
                collapsed={toggled}
                onToggleCollapsed={toggle}
                comments={comments}
                onLineClick={onLineClick}
                deferred={loaded}
                onNeedFile={loadFile ? need : undefined}
              />
            </Suspense>
          )}
        </div>
      </div>
    </div>
  );
}
