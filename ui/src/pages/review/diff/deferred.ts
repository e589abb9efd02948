// Files whose hunks the review payload left out (`hunksDeferred`): their load state, and the
// diff as the viewer draws it, with every file loaded so far put back in place.
import type { CapturedDiff, FileChange } from "../../../ipc";

export type Deferred =
  | { state: "loading" }
  | { state: "error"; message: string }
  | { state: "done"; file: FileChange };

/** `diff` with each deferred file that has loaded replaced by its full change. */
export function withLoaded(
  diff: CapturedDiff,
  loaded: ReadonlyMap<string, Deferred>,
): CapturedDiff {
  let changed = false;
  const files = diff.files.map((file) => {
    const entry = file.hunksDeferred ? loaded.get(file.path) : undefined;
    if (entry?.state === "done") {
      changed = true;
      return entry.file;
    }
    return file;
  });
  return changed ? { ...diff, files } : diff;
}
