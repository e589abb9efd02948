// Pure helpers over the captured diff Rust sends (`CapturedDiff` / `FileChange` / `Hunk`):
// the unified text the diff library parses, which files start collapsed, what to say about a
// file whose content is not shown as lines, and the file tree with +/− counts.
import type { FileChange } from "../../../ipc";

/** A path as a diff header names it: quoted (C-style) when it holds a space, quote or control. */
function headerPath(prefix: "a/" | "b/", path: string): string {
  const full = `${prefix}${path}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters force quoting
  if (!/[\s"\\\u0000-\u001f]/.test(full)) {
    return full;
  }
  return `"${full.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\t/g, "\\t").replace(/\n/g, "\\n")}"`;
}

/**
 * One file of the captured diff as git-style unified text, rebuilt from the typed hunks (the
 * diff library's input). Binary and omitted files have headers only: the viewer says why.
 */
export function filePatch(file: FileChange): string {
  const oldPath = file.oldPath ?? file.path;
  const out: string[] = [`diff --git ${headerPath("a/", oldPath)} ${headerPath("b/", file.path)}`];
  if (file.status === "added") {
    out.push(`new file mode ${file.newMode ?? "100644"}`);
  } else if (file.status === "deleted") {
    out.push(`deleted file mode ${file.oldMode ?? "100644"}`);
  } else if (file.oldMode && file.newMode && file.oldMode !== file.newMode) {
    out.push(`old mode ${file.oldMode}`, `new mode ${file.newMode}`);
  }
  if (file.status === "renamed" || file.status === "copied") {
    const verb = file.status === "renamed" ? "rename" : "copy";
    out.push(`similarity index ${file.similarity ?? 100}%`);
    out.push(`${verb} from ${oldPath}`, `${verb} to ${file.path}`);
  }
  if (file.hunks.length > 0) {
    out.push(file.status === "added" ? "--- /dev/null" : `--- ${headerPath("a/", oldPath)}`);
    out.push(file.status === "deleted" ? "+++ /dev/null" : `+++ ${headerPath("b/", file.path)}`);
  }
  for (const hunk of file.hunks) {
    const section = hunk.section ? ` ${hunk.section}` : "";
    out.push(
      `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@${section}`,
    );
    for (const line of hunk.lines) {
      const sign = line.kind === "added" ? "+" : line.kind === "removed" ? "-" : " ";
      out.push(`${sign}${line.text}`);
      if (line.noNewline) {
        out.push("\\ No newline at end of file");
      }
    }
  }
  return `${out.join("\n")}\n`;
}

/** Lines the viewer would draw for the file (hunk headers excluded). */
export function lineCount(file: FileChange): number {
  let n = 0;
  for (const hunk of file.hunks) {
    n += hunk.lines.length;
  }
  return n;
}

const LOCKFILES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "bun.lock",
  "Cargo.lock",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
  "go.sum",
  "Gemfile.lock",
  "composer.lock",
  "flake.lock",
  "mix.lock",
  "pubspec.lock",
  "Podfile.lock",
  "packages.lock.json",
]);

const GENERATED_DIRS = [
  "dist/",
  "build/",
  "vendor/",
  "node_modules/",
  "target/",
  "__generated__/",
  ".sqlx/",
];

/**
 * Why a file starts collapsed (`lockfile`, `generated`), or `null`. Lockfiles and generated
 * output are rarely what a reviewer needs to read line by line; one click opens them.
 */
export function collapseReason(path: string): "lockfile" | "generated" | null {
  const name = path.split("/").pop() ?? path;
  if (LOCKFILES.has(name)) {
    return "lockfile";
  }
  if (
    /\.(min\.(js|css)|map|snap)$/.test(name) ||
    /(^|[._-])generated[._-]/i.test(name) ||
    /\.(pb|pb\.go|g\.dart|freezed\.dart)$/.test(name) ||
    /_pb2(_grpc)?\.py$/.test(name) ||
    GENERATED_DIRS.some((dir) => path.startsWith(dir) || path.includes(`/${dir}`))
  ) {
    return "generated";
  }
  return null;
}

/** Human size: `512 B`, `3.4 KB`, `2.1 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) {
    return `${bytes} B`;
  }
  if (bytes < 1024 * 1024) {
    return `${(bytes / 1024).toFixed(1)} KB`;
  }
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export type NoteKind =
  | "renamed"
  | "mode"
  | "deleted"
  | "added"
  | "binary"
  | "omitted"
  | "symlink"
  | "type";

/** One fact about a file that its lines do not show. */
export interface FileNote {
  kind: NoteKind;
  text: string;
}

/** What to say about a file beyond its lines: renames, mode changes, binary, omitted, links. */
export function fileNotes(file: FileChange): FileNote[] {
  const notes: FileNote[] = [];
  if (file.status === "renamed" && file.oldPath) {
    notes.push({
      kind: "renamed",
      text: `renamed from ${file.oldPath} (${file.similarity ?? 100}% similar)`,
    });
  }
  if (file.status === "copied" && file.oldPath) {
    notes.push({ kind: "renamed", text: `copied from ${file.oldPath}` });
  }
  if (file.status === "added") {
    notes.push({ kind: "added", text: "new file" });
  }
  if (file.status === "deleted") {
    notes.push({ kind: "deleted", text: "deleted" });
  }
  if (file.status === "typeChanged") {
    notes.push({
      kind: "type",
      text: `type changed (${file.oldMode ?? "?"} → ${file.newMode ?? "?"})`,
    });
  } else if (file.oldMode && file.newMode && file.oldMode !== file.newMode) {
    notes.push({ kind: "mode", text: `mode ${file.oldMode} → ${file.newMode}` });
  }
  if (file.isSymlink) {
    notes.push({
      kind: "symlink",
      text: file.symlinkTarget ? `symlink → ${file.symlinkTarget}` : "symlink",
    });
  }
  if (file.contentOmitted) {
    const size = Math.max(file.size ?? 0, file.oldSize ?? 0);
    notes.push({ kind: "omitted", text: `content omitted (${formatBytes(size)}, over 2 MB)` });
  } else if (file.isBinary) {
    const sizes =
      file.oldSize != null && file.status !== "added" && file.status !== "deleted"
        ? `${formatBytes(file.oldSize)} → ${formatBytes(file.size ?? 0)}`
        : formatBytes(file.size ?? 0);
    notes.push({ kind: "binary", text: `binary file (${sizes})` });
  }
  return notes;
}

/** A folder or file of the tree, with the +/− of everything below it. */
export interface TreeNode {
  name: string;
  /** Full path (folders: without the trailing slash). */
  path: string;
  additions: number;
  deletions: number;
  /** Index into `CapturedDiff.files` for a file; `null` for a folder. */
  file: number | null;
  children: TreeNode[];
}

/**
 * The changed files as a folder tree (folders first, then by name), single-child folder chains
 * joined (`src/pages/review`), each node summing its files' counts.
 */
export function fileTree(files: readonly FileChange[]): TreeNode[] {
  const root: TreeNode = {
    name: "",
    path: "",
    additions: 0,
    deletions: 0,
    file: null,
    children: [],
  };
  files.forEach((file, index) => {
    const parts = file.path.split("/");
    let node = root;
    node.additions += file.additions;
    node.deletions += file.deletions;
    parts.forEach((part, depth) => {
      const path = parts.slice(0, depth + 1).join("/");
      const leaf = depth === parts.length - 1;
      let child = node.children.find((c) => c.name === part && (c.file === null) === !leaf);
      if (!child) {
        child = {
          name: part,
          path,
          additions: 0,
          deletions: 0,
          file: leaf ? index : null,
          children: [],
        };
        node.children.push(child);
      }
      child.additions += file.additions;
      child.deletions += file.deletions;
      node = child;
    });
  });
  const tidy = (node: TreeNode): TreeNode => {
    let current = node;
    while (
      current.file === null &&
      current.children.length === 1 &&
      current.children[0]?.file === null
    ) {
      const only = current.children[0];
      current = { ...only, name: current.name ? `${current.name}/${only.name}` : only.name };
    }
    const children = current.children.map(tidy).sort((a, b) => {
      if ((a.file === null) !== (b.file === null)) {
        return a.file === null ? -1 : 1;
      }
      return a.name.localeCompare(b.name);
    });
    return { ...current, children };
  };
  const tidied = tidy(root);
  return tidied.children.length === 0 ? [] : rootChildren(tidied);
}

function rootChildren(root: TreeNode): TreeNode[] {
  // A tree whose every file sits under one folder shows that folder as its single root.
  return root.name ? [root] : root.children;
}
