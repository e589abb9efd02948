import { lazy, Suspense, useCallback, useEffect, useState } from "react";
import { tinykeys } from "tinykeys";
import { Icon } from "./components/Icon";
import { StatusBar } from "./components/StatusBar";
import { type AppInfo, describeError, ipc } from "./ipc";
import { notePrefix, PAGE_KEYS } from "./keys/shortcuts";
import { hashFor, PAGES, type PageId, pageFromHash } from "./nav";
import { Placeholder } from "./pages/Placeholder";
import { StartupError } from "./pages/StartupError";
import { applyTheme } from "./theme";

// Every page loads on first visit (the default one right after the shell's first frame), so
// the first paint parses only React and the shell.
const ModelsPage = lazy(() =>
  import("./pages/models/ModelsPage").then((m) => ({ default: m.ModelsPage })),
);
const Settings = lazy(() => import("./pages/Settings").then((m) => ({ default: m.Settings })));
const FirstRunChecklist = lazy(() =>
  import("./pages/FirstRunChecklist").then((m) => ({ default: m.FirstRunChecklist })),
);
const KeysPage = lazy(() => import("./pages/keys/KeysPage").then((m) => ({ default: m.KeysPage })));
const RolesPage = lazy(() =>
  import("./pages/roles/RolesPage").then((m) => ({ default: m.RolesPage })),
);
const ReviewPage = lazy(() =>
  import("./pages/review/ReviewPage").then((m) => ({ default: m.ReviewPage })),
);
const RunsPage = lazy(() => import("./pages/runs/RunsPage").then((m) => ({ default: m.RunsPage })));
const RoutePage = lazy(() =>
  import("./pages/route/RoutePage").then((m) => ({ default: m.RoutePage })),
);
const Palette = lazy(() => import("./palette/Palette").then((m) => ({ default: m.Palette })));
const ShortcutsDialog = lazy(() =>
  import("./keys/ShortcutsDialog").then((m) => ({ default: m.ShortcutsDialog })),
);

type Boot =
  | { state: "loading" }
  | { state: "ready"; info: AppInfo }
  | { state: "failed"; message: string; code: string };

export function App() {
  const [page, setPage] = useState<PageId>(() => pageFromHash(window.location.hash));
  const [boot, setBoot] = useState<Boot>({ state: "loading" });
  // `null` until first asked for: the palette's code loads then, not at start-up.
  const [palette, setPalette] = useState<boolean | null>(null);
  const [shortcuts, setShortcuts] = useState<boolean | null>(null);

  const loadInfo = useCallback(async () => {
    // The stored theme (the first frame used the cached copy).
    ipc.uiPrefs().then(
      (prefs) => applyTheme(prefs.theme),
      () => undefined,
    );
    try {
      setBoot({ state: "ready", info: await ipc.appInfo() });
    } catch (error) {
      const { code, message } = describeError(error);
      setBoot({ state: "failed", code, message });
    }
  }, []);

  useEffect(() => {
    // After the browser has painted the first frame of the shell.
    requestAnimationFrame(() => setTimeout(() => void ipc.recordFirstPaint(), 0));
  }, []);

  useEffect(() => {
    // The palette opens from anywhere, a text field included.
    const palette = tinykeys(
      window,
      {
        "$mod+KeyK": (event) => {
          event.preventDefault();
          setPalette((open) => !open);
        },
      },
      { ignore: (event) => event.repeat },
    );
    // The rest stay out of the way while typing.
    // Its own subscription: in one map a lone `g` and the `g …` sequences would conflict.
    const prefix = tinykeys(window, { g: () => notePrefix() });
    const rest = tinykeys(window, {
      "Shift+?": () => setShortcuts(true),
      ...Object.fromEntries(
        (Object.entries(PAGE_KEYS) as [PageId, string][]).map(([id, key]) => [
          `g ${key}`,
          () => {
            window.location.hash = hashFor(id);
          },
        ]),
      ),
    });
    return () => {
      palette();
      prefix();
      rest();
    };
  }, []);

  useEffect(() => {
    void loadInfo();
    const onHash = () => setPage(pageFromHash(window.location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [loadInfo]);

  if (boot.state === "failed") {
    return <StartupError code={boot.code} message={boot.message} />;
  }

  const current = PAGES.find((p) => p.id === page) ?? PAGES[0];
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <Icon name="logo" />
          <span>Switchyard</span>
        </div>
        <ul>
          {PAGES.map((entry) => (
            <li key={entry.id}>
              <a
                href={hashFor(entry.id)}
                className={entry.id === page ? "active" : undefined}
                aria-current={entry.id === page ? "page" : undefined}
                data-page={entry.id}
              >
                <Icon name={entry.id} />
                <span>{entry.title}</span>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content" id="page" data-page={page}>
        {page === "models" && (
          <Suspense fallback={null}>
            <FirstRunChecklist placement="start" />
          </Suspense>
        )}
        <Suspense fallback={<p className="muted">Loading…</p>}>
          {page === "settings" ? (
            <Settings info={boot.state === "ready" ? boot.info : null} />
          ) : page === "roles" ? (
            <RolesPage />
          ) : page === "models" ? (
            <ModelsPage />
          ) : page === "keys" ? (
            <KeysPage />
          ) : page === "route" ? (
            <RoutePage />
          ) : page === "runs" ? (
            <RunsPage />
          ) : page === "review" ? (
            <ReviewPage />
          ) : (
            current && <Placeholder page={current.id} />
          )}
        </Suspense>
      </main>
      <StatusBar info={boot.state === "ready" ? boot.info : null} />
      {palette !== null && (
        <Suspense fallback={null}>
          <Palette open={palette} onOpenChange={setPalette} />
        </Suspense>
      )}
      {shortcuts !== null && (
        <Suspense fallback={null}>
          <ShortcutsDialog open={shortcuts} onOpenChange={setShortcuts} />
        </Suspense>
      )}
    </div>
  );
}
