import { act, renderHook } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { applyStartupTheme, applyTheme, useThemeType } from "./theme";

describe("useThemeType", () => {
  it("follows a theme chosen while it is mounted", async () => {
    applyTheme("system");
    const { result } = renderHook(() => useThemeType());
    expect(result.current).toBe("system");
    await act(async () => {
      applyTheme("dark");
      // MutationObserver callbacks run as a microtask.
      await Promise.resolve();
    });
    expect(result.current).toBe("dark");
    await act(async () => {
      applyTheme("light");
      await Promise.resolve();
    });
    expect(result.current).toBe("light");
    applyTheme("system");
  });
});

describe("applyStartupTheme", () => {
  it("draws the first frame in the theme the shell handed over, without touching storage", () => {
    const getItem = vi.spyOn(Storage.prototype, "getItem");
    const setItem = vi.spyOn(Storage.prototype, "setItem");
    try {
      window.__SWITCHYARD_PREFS__ = { theme: "dark", checklistDismissed: false, plotHidden: false };
      applyStartupTheme();
      expect(document.documentElement.dataset.theme).toBe("dark");
      applyTheme("light");
      expect(document.documentElement.dataset.theme).toBe("light");
      expect(getItem).not.toHaveBeenCalled();
      expect(setItem).not.toHaveBeenCalled();
    } finally {
      getItem.mockRestore();
      setItem.mockRestore();
      applyTheme("system");
      delete window.__SWITCHYARD_PREFS__;
    }
  });

  it("follows the system when the preferences could not be read", () => {
    window.__SWITCHYARD_PREFS__ = null;
    applyStartupTheme();
    expect(document.documentElement.dataset.theme).toBeUndefined();
    delete window.__SWITCHYARD_PREFS__;
  });
});
