import { describe, expect, it } from "vitest";
import { attemptWord, nodeWord, RUN_STATES, runWord, toneClass } from "./states";

describe("state words from the engine's table", () => {
  it("words and colours states as Rust does", () => {
    expect(runWord("review").label).toBe("Needs review");
    expect(toneClass(runWord("completed").tone)).toBe("ok");
    expect(toneClass(nodeWord("failed").tone)).toBe("fail");
    expect(toneClass(nodeWord("running").tone)).toBe("live");
    expect(toneClass(nodeWord("skipped").tone)).toBe("warn");
    expect(toneClass(nodeWord("pending").tone)).toBe("");
    expect(attemptWord("interrupted")).toMatchObject({ live: false, final: false });
    expect(attemptWord("verifying").live).toBe(true);
  });

  it("lists run states in lifecycle order", () => {
    expect(RUN_STATES[0]).toBe("queued");
    expect(RUN_STATES.at(-1)).toBe("interrupted");
    expect(RUN_STATES).toHaveLength(11);
  });
});
