import { tinykeys } from "tinykeys";
import { describe, expect, it, vi } from "vitest";
import { notePrefix, SEQUENCE_MS, single } from "./shortcuts";

function press(key: string) {
  window.dispatchEvent(new KeyboardEvent("keydown", { key, code: `Key${key.toUpperCase()}` }));
}

describe("single-key shortcuts and `g` sequences", () => {
  it("`g r` opens Route without also rejecting; `r` alone still rejects", () => {
    const route = vi.fn();
    const reject = vi.fn();
    // As the app binds them: the prefix, the page jumps and the Review page's keys each in
    // their own subscription.
    const unbind = [
      tinykeys(window, { g: () => notePrefix() }),
      tinykeys(window, { "g r": route }),
      tinykeys(window, { r: single(reject) }),
    ];
    press("g");
    press("r");
    expect(route).toHaveBeenCalledTimes(1);
    expect(reject).not.toHaveBeenCalled();
    press("r");
    expect(reject).toHaveBeenCalledTimes(1);
    for (const off of unbind) off();
  });

  it("forgets the `g` after the sequence timeout", () => {
    const handler = vi.fn();
    const wrapped = single(handler);
    notePrefix(performance.now() - SEQUENCE_MS - 1);
    wrapped(new KeyboardEvent("keydown", { key: "k" }));
    expect(handler).toHaveBeenCalledTimes(1);
  });
});
