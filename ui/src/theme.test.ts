import { act, renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { applyTheme, useThemeType } from "./theme";

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
