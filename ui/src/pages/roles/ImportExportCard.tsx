import { type ChangeEvent, useEffect, useState } from "react";
import { describeError, type ImportMode, type ImportReport, rolesIpc } from "../../ipc";
import { copyText } from "./clipboard";
import { plural } from "./labels";

/** The file name offered for exports. */
export const EXPORT_FILE_NAME = "switchyard-roles.json";

interface ImportExportCardProps {
  /** Called after a successful import so the page reloads blocks and presets. */
  onImported: () => void;
}

/**
 * The roles file, without any file-system permission: export = a Blob download link plus
 * copy-to-clipboard; import = an `<input type="file">` read with FileReader, or pasted text.
 */
export function ImportExportCard({ onImported }: ImportExportCardProps) {
  const [exported, setExported] = useState<{ text: string; url: string } | null>(null);
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState<string | null>(null);
  const [mode, setMode] = useState<ImportMode>("merge");
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(
    () => () => {
      if (exported) URL.revokeObjectURL(exported.url);
    },
    [exported],
  );

  const exportRoles = async () => {
    setError(null);
    try {
      const json = await rolesIpc.exportRoles();
      const url = URL.createObjectURL(new Blob([json], { type: "application/json" }));
      setExported({ text: json, url });
      setCopied(false);
    } catch (e) {
      setError(describeError(e).message);
    }
  };

  const readFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => {
      setText(typeof reader.result === "string" ? reader.result : "");
      setFileName(file.name);
      setReport(null);
    };
    reader.onerror = () =>
      setError(`Cannot read ${file.name}: ${reader.error?.message ?? "unknown error"}`);
    reader.readAsText(file);
    // Choosing the same file again must fire onChange again.
    event.target.value = "";
  };

  const importRoles = async () => {
    setBusy(true);
    setError(null);
    setReport(null);
    try {
      setReport(await rolesIpc.importRoles(text, mode));
      onImported();
    } catch (e) {
      setError(describeError(e).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card import-export" id="roles-file">
      <div className="card-title-row">
        <h2>Import and export</h2>
      </div>
      <p className="muted small">
        One JSON file holds every custom block and preset. Importing checks the whole file first: a
        bad file changes nothing.
      </p>

      <div className="io-section">
        <h3>Export</h3>
        <div className="inline-form">
          <button type="button" id="roles-export" onClick={exportRoles}>
            Prepare export
          </button>
          {exported && (
            <>
              <a
                className="button primary"
                href={exported.url}
                download={EXPORT_FILE_NAME}
                id="roles-download"
              >
                Download {EXPORT_FILE_NAME}
              </a>
              <button
                type="button"
                onClick={async () => setCopied(await copyText(exported.text))}
                id="roles-export-copy"
              >
                {copied ? "Copied" : "Copy JSON"}
              </button>
            </>
          )}
        </div>
        {exported && (
          <p className="muted small">{exported.text.length.toLocaleString()} characters ready.</p>
        )}
      </div>

      <div className="io-section">
        <h3>Import</h3>
        <div className="inline-form">
          <label className="button file-button">
            Choose file…
            <input
              type="file"
              accept=".json,application/json"
              id="roles-import-file"
              onChange={readFile}
            />
          </label>
          <span className="muted small">{fileName ?? "or paste the JSON below"}</span>
        </div>
        <textarea
          id="roles-import-text"
          className="mono"
          rows={5}
          placeholder='{"version": 1, "blocks": [...], "presets": [...]}'
          aria-label="Roles file JSON"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setFileName(null);
          }}
        />
        <fieldset className="mode">
          <legend className="sr-only">Import mode</legend>
          <label>
            <input
              type="radio"
              name="import-mode"
              checked={mode === "merge"}
              onChange={() => setMode("merge")}
            />{" "}
            Merge <span className="muted small">(same ids and names are replaced)</span>
          </label>
          <label>
            <input
              type="radio"
              name="import-mode"
              checked={mode === "replace"}
              onChange={() => setMode("replace")}
            />{" "}
            Replace{" "}
            <span className="muted small">(delete every custom block and preset first)</span>
          </label>
        </fieldset>
        <div className="form-actions">
          <span className="grow" />
          <button
            type="button"
            className={mode === "replace" ? "danger" : "primary"}
            id="roles-import"
            disabled={busy || text.trim() === ""}
            onClick={importRoles}
          >
            {mode === "replace" ? "Replace with file" : "Import"}
          </button>
        </div>
      </div>

      {error && (
        <p className="error small" id="roles-file-error">
          {error}
        </p>
      )}
      {report && (
        <p className="success-text small" id="roles-import-report">
          {describeReport(report)}
        </p>
      )}
    </div>
  );
}

/** `Imported 2 blocks and 1 preset (1 replaced); removed 3 presets.` */
export function describeReport(report: ImportReport): string {
  const replaced = report.blocksReplaced + report.presetsReplaced;
  const removed = [
    report.blocksRemoved > 0 ? plural(report.blocksRemoved, "block") : null,
    report.presetsRemoved > 0 ? plural(report.presetsRemoved, "preset") : null,
  ].filter(Boolean);
  return (
    `Imported ${plural(report.blocksImported, "block")} and ${plural(report.presetsImported, "preset")}` +
    (replaced > 0 ? ` (${replaced} replaced)` : "") +
    (removed.length > 0 ? `; removed ${removed.join(" and ")}` : "") +
    "."
  );
}
