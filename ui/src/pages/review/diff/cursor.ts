// Moving through a diff from the keyboard: file to file, hunk to hunk. A hunk's stop is its
// first added line (its first new-side line when it only removes). Pure, so it is tested alone.
import type { CapturedDiff } from "../../../ipc";

export interface Stop {
  path: string;
  line: number;
}

/** Every hunk's stop, in file order. */
export function hunkStops(diff: CapturedDiff): Stop[] {
  const stops: Stop[] = [];
  for (const file of diff.files) {
    for (const hunk of file.hunks) {
      const added = hunk.lines.find((l) => l.kind === "added" && l.newLine !== null);
      const line = added?.newLine ?? Math.max(1, hunk.newStart);
      stops.push({ path: file.path, line });
    }
  }
  return stops;
}

/** The stop after (`1`) or before (`-1`) `at`; the first (or last) when there is none yet. */
export function nextStop(stops: readonly Stop[], at: Stop | null, by: 1 | -1): Stop | null {
  if (stops.length === 0) return null;
  if (!at) return (by === 1 ? stops[0] : stops[stops.length - 1]) ?? null;
  const here = stops.findIndex((s) => s.path === at.path && s.line === at.line);
  if (here >= 0) return stops[Math.min(stops.length - 1, Math.max(0, here + by))] ?? null;
  // Off a stop (a file chosen in the tree): the first stop of that file, or the next file's.
  const paths = [...new Set(stops.map((s) => s.path))];
  const fileAt = paths.indexOf(at.path);
  const candidates = by === 1 ? stops : [...stops].reverse();
  return (
    candidates.find((s) => {
      const i = paths.indexOf(s.path);
      return by === 1 ? i >= fileAt : i < fileAt;
    }) ?? null
  );
}

/** The file after (`1`) or before (`-1`) `path`; the first (or last) when `path` is none. */
export function nextFile(diff: CapturedDiff, path: string | null, by: 1 | -1): string | null {
  const paths = diff.files.map((f) => f.path);
  if (paths.length === 0) return null;
  const here = path === null ? -1 : paths.indexOf(path);
  if (here < 0) return (by === 1 ? paths[0] : paths[paths.length - 1]) ?? null;
  return paths[Math.min(paths.length - 1, Math.max(0, here + by))] ?? null;
}
