import { useEffect, useState } from "react";
import type { RoleWarning } from "../../ipc";
import { copyText } from "./clipboard";
import { plural } from "./labels";
import type { Composition } from "./useComposition";

interface PreviewPanelProps {
  composition: Composition;
  onApplySuggestion: (warning: RoleWarning) => void;
}

type CopyState = "idle" | "copied" | "failed";

/** The full prompt exactly as it will be sent, its size, warnings and a copy button. */
export function PreviewPanel({ composition, onApplySuggestion }: PreviewPanelProps) {
  const [copy, setCopy] = useState<CopyState>("idle");
  const role =
    composition.state === "ready" || composition.state === "loading" ? composition.role : null;

  useEffect(() => {
    if (copy === "idle") {
      return;
    }
    const timer = setTimeout(() => setCopy("idle"), 1800);
    return () => clearTimeout(timer);
  }, [copy]);

  const onCopy = async () => {
    if (role) {
      setCopy((await copyText(role.fullPrompt)) ? "copied" : "failed");
    }
  };

  return (
    <div className="card preview-card" data-state={composition.state}>
      <div className="card-title-row">
        <h2>Preview</h2>
        {role && (
          <>
            <span className="pill accent" id="role-tokens" title="Estimated tokens">
              ≈ {role.tokenEstimate.toLocaleString()} tokens
            </span>
            <span className="muted small">
              {role.fullPrompt.length.toLocaleString()} chars ·{" "}
              {plural(role.blocks.length, "block")}
            </span>
          </>
        )}
        {composition.state === "loading" && (
          <span className="spinner" role="status" aria-label="Composing" />
        )}
        <span className="grow" />
        <button
          type="button"
          id="role-copy"
          className={copy === "copied" ? "success" : undefined}
          onClick={onCopy}
          disabled={!role}
        >
          {copy === "copied" ? "Copied" : copy === "failed" ? "Copy failed" : "Copy"}
        </button>
      </div>

      {role && role.warnings.length > 0 && (
        <ul className="warnings" id="role-warnings">
          {role.warnings.map((warning) => (
            <li key={`${warning.kind}:${warning.id}`} data-kind={warning.kind} data-id={warning.id}>
              <span className="dot warn" />
              <span className="grow">{warning.message}</span>
              {warning.suggestion && (
                <button type="button" className="link" onClick={() => onApplySuggestion(warning)}>
                  Use {warning.suggestion}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}

      {composition.state === "error" && (
        <p className="error banner" id="role-error">
          {composition.message}
        </p>
      )}

      {role ? (
        <>
          {!role.hasRole && (
            <p className="muted small note" id="role-no-blocks">
              No block chosen: the task is sent on its own.
            </p>
          )}
          <PromptText text={role.fullPrompt} />
        </>
      ) : (
        composition.state !== "error" && (
          <div className="empty-state" id="role-preview-empty">
            <p className="empty-title">Nothing to preview yet</p>
            <p className="muted">
              Type a task and pick a few blocks: the full prompt appears here as it will be sent,
              with its token estimate.
            </p>
          </div>
        )
      )}
    </div>
  );
}

/** The prompt with its Markdown headings emphasised; its text is exactly the prompt. */
function PromptText({ text }: { text: string }) {
  const lines = text.split("\n");
  return (
    <pre className="prompt" id="role-preview">
      {lines.map((line, index) => {
        const heading = line.startsWith("# ") ? "h1" : line.startsWith("## ") ? "h2" : null;
        const end = index < lines.length - 1 ? "\n" : "";
        return heading ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
          <span key={index} className={`prompt-${heading}`}>
            {line}
            {end}
          </span>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
          <span key={index}>
            {line}
            {end}
          </span>
        );
      })}
    </pre>
  );
}
