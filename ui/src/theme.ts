// The theme on the page: `data-theme` on the root element (none: follow the system). Rust
// stores the choice; a copy in localStorage lets the first frame use it before Rust answers.
import { useEffect, useState } from "react";
import type { Theme } from "./ipc";

const CACHE = "switchyard.theme";

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === "system") delete root.dataset.theme;
  else root.dataset.theme = theme;
  try {
    localStorage.setItem(CACHE, theme);
  } catch {
    // Storage unavailable: the next start applies Rust's answer a moment later.
  }
}

/** Applies the theme the last run stored, before the first render. */
export function applyCachedTheme(): void {
  try {
    const cached = localStorage.getItem(CACHE);
    if (cached === "light" || cached === "dark" || cached === "system") applyTheme(cached);
  } catch {
    // As above.
  }
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
