import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSequencer, useDebouncedValue } from "./debounce";

describe("useDebouncedValue", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("settles only after the value stops changing for the delay", () => {
    const { result, rerender } = renderHook(({ value }) => useDebouncedValue(value, 200), {
      initialProps: { value: "a" },
    });
    expect(result.current).toBe("a");
    rerender({ value: "ab" });
    act(() => vi.advanceTimersByTime(150));
    rerender({ value: "abc" });
    act(() => vi.advanceTimersByTime(150));
    expect(result.current).toBe("a");
    act(() => vi.advanceTimersByTime(60));
    expect(result.current).toBe("abc");
  });
});

describe("createSequencer", () => {
  it("only the newest ticket is latest", () => {
    const sequencer = createSequencer();
    const first = sequencer.next();
    const second = sequencer.next();
    expect(sequencer.isLatest(first)).toBe(false);
    expect(sequencer.isLatest(second)).toBe(true);
    const other = createSequencer();
    expect(other.isLatest(other.next())).toBe(true);
  });
});
