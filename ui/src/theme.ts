// The theme on the page: `data-theme` on the root element (none: follow the system). Rust
// stores the choice and hands the stored preferences to the page before its scripts run
// (`window.__SWITCHYARD_PREFS__`, set by the shell), so the first frame uses it. Not
// `localStorage`: its first read waits on WebKit's network process before the first render.
import { useEffect, useState } from "react";
import type { Theme, UiPrefs } from "./ipc";

declare global {
  interface Window {
    /** The preferences stored when the app started (`null`: they could not be read). */
    __SWITCHYARD_PREFS__?: UiPrefs | null;
  }
}

/** The preferences Rust stored, as they were when the app started. */
export function startupPrefs(): UiPrefs | null {
  return window.__SWITCHYARD_PREFS__ ?? null;
}

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === "system") delete root.dataset.theme;
  else root.dataset.theme = theme;
}

/** Applies the theme stored when the app started, before the first render. */
export function applyStartupTheme(): void {
  const theme = startupPrefs()?.theme;
  if (theme === "light" || theme === "dark" || theme === "system") applyTheme(theme);
}

/** What the diff viewer should draw in: the chosen theme, or the system's. */
export function themeType(): "light" | "dark" | "system" {
  const chosen = document.documentElement.dataset.theme;
  return chosen === "light" || chosen === "dark" ? chosen : "system";
}

/** [`themeType`], kept current while mounted: a theme chosen meanwhile redraws the viewer. */
export function useThemeType(): "light" | "dark" | "system" {
  const [type, setType] = useState(themeType);
  useEffect(() => {
    const observer = new MutationObserver(() => setType(themeType()));
    observer.observe(document.documentElement, { attributeFilter: ["data-theme"] });
    return () => observer.disconnect();
  }, []);
  return type;
}
