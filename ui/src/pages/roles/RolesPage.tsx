import { useCallback, useEffect, useState } from "react";
import { describeError, type RoleBlock, type RolePreset, rolesIpc } from "../../ipc";
import { ComposeView } from "./ComposeView";
import { LibraryView } from "./LibraryView";
import "./roles.css";

type Tab = "compose" | "library";

const TABS: readonly { id: Tab; title: string }[] = [
  { id: "compose", title: "Compose" },
  { id: "library", title: "Custom blocks & files" },
];

/** Roles: compose a role prompt from blocks, preview it, keep presets and custom blocks. */
export function RolesPage() {
  const [tab, setTab] = useState<Tab>("compose");
  const [blocks, setBlocks] = useState<RoleBlock[] | null>(null);
  const [presets, setPresets] = useState<RolePreset[]>([]);
  const [libraryVersion, setLibraryVersion] = useState(0);
  const [error, setError] = useState<string | null>(null);

  const reloadPresets = useCallback(async () => {
    try {
      setPresets(await rolesIpc.presets());
    } catch (e) {
      setError(describeError(e).message);
    }
  }, []);

  const reloadAll = useCallback(async () => {
    try {
      const [nextBlocks, nextPresets] = await Promise.all([rolesIpc.blocks(), rolesIpc.presets()]);
      setBlocks(nextBlocks);
      setPresets(nextPresets);
      setLibraryVersion((v) => v + 1);
      setError(null);
    } catch (e) {
      setError(describeError(e).message);
    }
  }, []);

  useEffect(() => {
    void reloadAll();
  }, [reloadAll]);

  const customCount = blocks?.filter((b) => b.source === "custom").length ?? 0;

  return (
    <section className="page roles form-page" id="roles-page">
      <header className="page-header roles-header">
        <div>
          <h1>Roles</h1>
          <p className="muted">
            Compose a precise role prompt from persona, stack, domain, format and guardrail blocks.
          </p>
        </div>
        <span className="grow" />
        <div className="tabs" role="tablist" aria-label="Roles views">
          {TABS.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              aria-selected={tab === t.id}
              className={tab === t.id ? "active" : undefined}
              data-tab={t.id}
              onClick={() => setTab(t.id)}
            >
              {t.title}
              {t.id === "library" && customCount > 0 && (
                <span className="tab-count">{customCount}</span>
              )}
            </button>
          ))}
        </div>
      </header>

      {error && (
        <div className="card error-card" id="roles-error">
          <p className="error">{error}</p>
          <button type="button" onClick={() => void reloadAll()}>
            Try again
          </button>
        </div>
      )}

      {blocks === null ? (
        !error && <p className="muted">Loading the block library…</p>
      ) : (
        // Both views stay mounted so switching tabs keeps the selection and task.
        <>
          <div hidden={tab !== "compose"}>
            <ComposeView
              blocks={blocks}
              presets={presets}
              libraryVersion={libraryVersion}
              reloadPresets={reloadPresets}
            />
          </div>
          <div hidden={tab !== "library"}>
            <LibraryView blocks={blocks} onChanged={reloadAll} />
          </div>
        </>
      )}
    </section>
  );
}
