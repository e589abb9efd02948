import { lazy, Suspense, useCallback, useRef, useState } from "react";
import type { CapturedDiff, LineComment } from "../../../ipc";
import type { DiffRendererHandle, DiffStyle } from "./DiffRenderer";
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
}

/** Rough pixel height of the rendered diff, so a small change does not sit in a tall empty box. */
function bodyHeight(diff: CapturedDiff, compact: boolean): string {
  let rows = 0;
  for (const file of diff.files) {
    rows += 2.5 + (collapseReason(file.path) ? 0 : lineCount(file) + file.hunks.length * 1.6);
  }
  const px = Math.max(compact ? 140 : 220, Math.round(rows * 20) + 40);
  return `min(${px}px, ${compact ? 55 : 70}vh)`;
}

/** File tree with +/− counts beside the unified or split diff of every file. */
export function DiffPane({ diff, comments = [], onLineClick, compact = false }: Props) {
  const [style, setStyle] = useState<DiffStyle>("unified");
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

  const select = useCallback((path: string) => {
    setSelected(path);
    renderer.current?.scrollToFile(path);
  }, []);

  return (
    <div className={`diff-pane${compact ? " compact" : ""}`} data-diff-sha={diff.sha256}>
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
              />
            </Suspense>
          )}
        </div>
      </div>
    </div>
  );
}
