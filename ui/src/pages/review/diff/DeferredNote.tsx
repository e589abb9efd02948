import { useEffect } from "react";
import type { Deferred } from "./deferred";

/**
 * The header note of a file whose hunks are not here yet. The viewer is virtualized, so this
 * mounts when the file scrolls into view (or is expanded): that is when it asks for them.
 */
export function DeferredNote({
  path,
  entry,
  open,
  onNeed,
}: {
  path: string;
  entry: Deferred | undefined;
  open: boolean;
  onNeed?: (path: string, retry?: boolean) => void;
}) {
  useEffect(() => {
    if (open) onNeed?.(path);
  }, [open, path, onNeed]);
  if (entry?.state === "error") {
    return (
      <span className="diff-note note-error" data-diff-deferred="error" title={entry.message}>
        could not load: {entry.message}{" "}
        <button type="button" className="link" onClick={() => onNeed?.(path, true)}>
          Retry
        </button>
      </span>
    );
  }
  return (
    <span className="diff-note note-loading" data-diff-deferred="loading">
      {onNeed ? "loading lines…" : "lines not loaded"}
    </span>
  );
}
