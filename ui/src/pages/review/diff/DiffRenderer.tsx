// The diff library (@pierre/diffs: Shiki highlighting on its JavaScript regex engine, so the
// CSP needs no eval or wasm; virtualized across and within files). Loaded with a dynamic
// import by DiffPane, so neither the library nor its grammars weigh on the app's first paint.

import { processFile } from "@pierre/diffs";
import {
  CodeView,
  type CodeViewHandle,
  type CodeViewItem,
  type DiffLineAnnotation,
  type FileDiffMetadata,
} from "@pierre/diffs/react";
import { forwardRef, useImperativeHandle, useMemo, useRef } from "react";
import type { CapturedDiff, FileChange, LineComment } from "../../../ipc";
import { useThemeType } from "../../../theme";
import { DeferredNote } from "./DeferredNote";
import type { Deferred } from "./deferred";
import { collapseReason, fileNotes, filePatch } from "./model";

export type DiffStyle = "unified" | "split";

export interface DiffRendererProps {
  diff: CapturedDiff;
  style: DiffStyle;
  /** Paths the user has collapsed or expanded (overrides the default). */
  collapsed: ReadonlySet<string>;
  onToggleCollapsed: (path: string) => void;
  comments: readonly LineComment[];
  /** A click on a new-side line (to comment on it). */
  onLineClick?: (path: string, line: number) => void;
  /** Load state of the files marked `hunksDeferred`. */
  deferred?: ReadonlyMap<string, Deferred>;
  /** Asks for a deferred file's hunks (its header came into view); `retry` after an error. */
  onNeedFile?: (path: string, retry?: boolean) => void;
}

export interface DiffRendererHandle {
  scrollToFile: (path: string) => void;
  /** Scrolls new-side line `line` of `path` to the middle and marks it as the focused line. */
  focusLine: (path: string, line: number) => void;
}

type Note = { text: string };

/** The library's metadata for one typed file; `null` when it cannot parse (shown as a note). */
export function toFileDiff(file: FileChange, cacheKey: string): FileDiffMetadata | null {
  const parsed = processFile(filePatch(file), { isGitDiff: true, cacheKey });
  if (!parsed) {
    return null;
  }
  // The typed paths are the truth (no quoting round trip).
  parsed.name = file.path;
  if (file.oldPath) {
    parsed.prevName = file.oldPath;
  }
  return parsed;
}

export const DiffRenderer = forwardRef<DiffRendererHandle, DiffRendererProps>(function DiffRenderer(
  { diff, style, collapsed, onToggleCollapsed, comments, onLineClick, deferred, onNeedFile },
  ref,
) {
  const view = useRef<CodeViewHandle<Note, undefined>>(null);
  const shownTheme = useThemeType();
  // Parsed once per file and form (deferred or full), so a file loading in does not re-parse
  // the others.
  const cache = useRef(new Map<string, FileDiffMetadata | null>());
  const parsed = useMemo(
    () =>
      diff.files.map((file) => {
        const key = `${diff.sha256}:${file.hunksDeferred ? "deferred" : "full"}:${file.path}`;
        let hit = cache.current.get(key);
        if (hit === undefined) {
          hit = toFileDiff(file, key);
          cache.current.set(key, hit);
        }
        return hit;
      }),
    [diff],
  );
  const byPath = useMemo(() => new Map(diff.files.map((f) => [f.path, f])), [diff]);

  const items = useMemo(() => {
    const out: CodeViewItem<Note>[] = [];
    diff.files.forEach((file, index) => {
      const fileDiff = parsed[index];
      if (!fileDiff) {
        return;
      }
      const annotations: DiffLineAnnotation<Note>[] = comments
        .filter((c) => c.path === file.path)
        .map((c) => ({ side: "additions", lineNumber: c.line, metadata: { text: c.text } }));
      const byDefault = collapseReason(file.path) !== null;
      out.push({
        id: file.path,
        type: "diff",
        fileDiff,
        annotations,
        collapsed: collapsed.has(file.path) ? !byDefault : byDefault,
        version: itemVersion(annotations, collapsed.has(file.path)),
      });
    });
    return out;
  }, [diff, parsed, comments, collapsed]);

  useImperativeHandle(ref, () => ({
    scrollToFile: (path: string) =>
      view.current?.scrollTo({ type: "item", id: path, align: "start", behavior: "instant" }),
    focusLine: (path: string, line: number) => {
      view.current?.scrollTo({
        type: "line",
        id: path,
        lineNumber: line,
        side: "additions",
        align: "center",
        behavior: "instant",
      });
      view.current?.setSelectedLines({
        id: path,
        range: { start: line, end: line, side: "additions" },
      });
    },
  }));

  return (
    <CodeView<Note, undefined>
      ref={view}
      className="diff-codeview"
      items={items}
      options={{
        diffStyle: style,
        themeType: shownTheme,
        theme: { dark: "pierre-dark", light: "pierre-light" },
        lineDiffType: "word",
        hunkSeparators: "line-info",
        overflow: "scroll",
        stickyHeaders: true,
        // Long minified lines would stall the tokenizer; past this they render plain.
        tokenizeMaxLineLength: 2000,
        onLineClick: (
          props: { annotationSide?: string; lineNumber: number },
          context?: { item?: { id: string } },
        ) => {
          const path = context?.item?.id;
          if (path && onLineClick && props.annotationSide === "additions") {
            onLineClick(path, props.lineNumber);
          }
        },
      }}
      renderHeaderPrefix={(item) => {
        const file = byPath.get(item.id);
        const isCollapsed = item.type === "diff" && item.collapsed;
        return (
          <button
            type="button"
            className="diff-collapse"
            data-diff-toggle={item.id}
            aria-label={isCollapsed ? `Expand ${item.id}` : `Collapse ${item.id}`}
            aria-expanded={!isCollapsed}
            onClick={() => file && onToggleCollapsed(file.path)}
          >
            {isCollapsed ? "▸" : "▾"}
          </button>
        );
      }}
      renderHeaderMetadata={(item) => {
        const file = byPath.get(item.id);
        if (!file) {
          return null;
        }
        const reason = collapseReason(file.path);
        // The header's width belongs to the file name: renames and new files show as the
        // library's own icons, and the longest note is cut to its tooltip.
        return (
          <span className="diff-notes" data-diff-notes={file.path}>
            {reason && <span className={`diff-note note-${reason}`}>{reason}</span>}
            {file.hunksDeferred && (
              <DeferredNote
                path={file.path}
                entry={deferred?.get(file.path)}
                open={!(item.type === "diff" && item.collapsed)}
                onNeed={onNeedFile}
              />
            )}
            {fileNotes(file)
              .filter((note) => note.kind !== "renamed" && note.kind !== "added")
              .map((note) => (
                <span key={note.kind} className={`diff-note note-${note.kind}`} title={note.text}>
                  {note.kind === "omitted" ? "content omitted" : note.text}
                </span>
              ))}
          </span>
        );
      }}
      renderAnnotation={(...args) => (
        <div className="diff-comment">
          <strong>Your comment</strong> {args[0].metadata?.text}
        </div>
      )}
    />
  );
});

/**
 * The library redraws an item only when its `version` changes. This one changes with every
 * comment's line and text, not only their count (a comment being typed showed its first
 * letter), and with the collapse state: an FNV-1a hash of them.
 */
function itemVersion(annotations: DiffLineAnnotation<Note>[], collapsedByUser: boolean): number {
  const key = JSON.stringify([
    collapsedByUser,
    annotations.map((a) => [a.lineNumber, a.metadata?.text ?? ""]),
  ]);
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash;
}
