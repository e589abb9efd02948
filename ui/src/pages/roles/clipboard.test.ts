import { afterEach, describe, expect, it, vi } from "vitest";
import { copyText } from "./clipboard";

function setClipboard(value: unknown) {
  Object.defineProperty(navigator, "clipboard", { value, configurable: true });
}

describe("copyText", () => {
  afterEach(() => {
    setClipboard(undefined);
    vi.restoreAllMocks();
  });

  it("uses the Clipboard API when it works", async () => {
    const writeText = vi.fn(async () => {});
    setClipboard({ writeText });
    await expect(copyText("hello")).resolves.toBe(true);
    expect(writeText).toHaveBeenCalledWith("hello");
  });

  it("falls back to execCommand when the API is refused, and cleans up", async () => {
    setClipboard({ writeText: vi.fn(async () => Promise.reject(new Error("denied"))) });
    let copied: string | null = null;
    const exec = vi.fn((command: string) => {
      copied = command === "copy" ? (document.querySelector("textarea")?.value ?? null) : null;
      return true;
    });
    Object.defineProperty(document, "execCommand", { value: exec, configurable: true });
    await expect(copyText("fallback text")).resolves.toBe(true);
    expect(copied).toBe("fallback text");
    expect(document.querySelector("textarea")).toBeNull();
  });

  it("reports failure when nothing can copy", async () => {
    setClipboard(undefined);
    Object.defineProperty(document, "execCommand", {
      value: () => {
        throw new Error("unsupported");
      },
      configurable: true,
    });
    await expect(copyText("x")).resolves.toBe(false);
  });
});
