import { describe, expect, it } from "vitest";
import { capturedDiff, file, hunk } from "../testdata";
import { hunkStops, nextFile, nextStop } from "./cursor";

const diff = capturedDiff([
  file("a.rs"),
  file("b.rs", {
    hunks: [
      hunk(3, [
        [" ", "x"],
        ["-", "y"],
      ]),
      hunk(40, [
        [" ", "p"],
        ["+", "q"],
      ]),
    ],
  }),
  file("c.rs"),
]);

describe("diff cursor", () => {
  it("stops at each hunk's first added line, or its new start when it only removes", () => {
    expect(hunkStops(diff)).toEqual([
      { path: "a.rs", line: 11 },
      { path: "b.rs", line: 3 },
      { path: "b.rs", line: 41 },
      { path: "c.rs", line: 11 },
    ]);
  });

  it("walks hunks across files and stays at the ends", () => {
    const stops = hunkStops(diff);
    expect(nextStop(stops, null, 1)).toEqual({ path: "a.rs", line: 11 });
    expect(nextStop(stops, null, -1)).toEqual({ path: "c.rs", line: 11 });
    expect(nextStop(stops, { path: "a.rs", line: 11 }, 1)).toEqual({ path: "b.rs", line: 3 });
    expect(nextStop(stops, { path: "b.rs", line: 41 }, -1)).toEqual({ path: "b.rs", line: 3 });
    expect(nextStop(stops, { path: "c.rs", line: 11 }, 1)).toEqual({ path: "c.rs", line: 11 });
    expect(nextStop([], null, 1)).toBeNull();
  });

  it("from a file chosen in the tree, goes to that file's first hunk or the previous file's", () => {
    const stops = hunkStops(diff);
    expect(nextStop(stops, { path: "b.rs", line: 0 }, 1)).toEqual({ path: "b.rs", line: 3 });
    expect(nextStop(stops, { path: "b.rs", line: 0 }, -1)).toEqual({ path: "a.rs", line: 11 });
  });

  it("walks files and stays at the ends", () => {
    expect(nextFile(diff, null, 1)).toBe("a.rs");
    expect(nextFile(diff, null, -1)).toBe("c.rs");
    expect(nextFile(diff, "a.rs", 1)).toBe("b.rs");
    expect(nextFile(diff, "a.rs", -1)).toBe("a.rs");
    expect(nextFile(capturedDiff([]), null, 1)).toBeNull();
  });
});
