import { describe, expect, it } from "vitest";
import { file, hunk, largeDiff } from "../testdata";
import { toFileDiff } from "./DiffRenderer";
import { collapseReason, fileNotes, filePatch, fileTree } from "./model";

describe("filePatch", () => {
  it("rebuilds git's unified text from the typed hunks, which the diff library parses back", () => {
    const change = file("src/pager.rs", {
      hunks: [
        hunk(
          10,
          [
            [" ", "fn page(n: usize) -> usize {"],
            ["-", "    n * SIZE + 1"],
            ["+", "    n * SIZE"],
            [" ", "}"],
          ],
          "impl Pager",
        ),
      ],
    });
    const text = filePatch(change);
    expect(text).toContain("@@ -10,3 +10,3 @@ impl Pager\n");
    expect(text).toContain("\n-    n * SIZE + 1\n+    n * SIZE\n");
    const parsed = toFileDiff(change, "k1");
    expect(parsed?.name).toBe("src/pager.rs");
    expect(parsed?.type).toBe("change");
    expect(parsed?.hunks).toHaveLength(1);
    expect(parsed?.hunks[0]?.additionStart).toBe(10);
    expect(parsed?.additionLines.map((l) => l.trimEnd())).toEqual([
      "fn page(n: usize) -> usize {",
      "    n * SIZE",
      "}",
    ]);
  });

  it("keeps paths with spaces, renames and missing final newlines intact", () => {
    const change = file("docs/new name.md", {
      oldPath: "docs/old name.md",
      status: "renamed",
      similarity: 90,
      hunks: [
        hunk(1, [
          ["-", "old"],
          ["+", "new"],
        ]),
      ],
    });
    const last = change.hunks[0]?.lines[1];
    if (last) last.noNewline = true;
    const text = filePatch(change);
    expect(text).toContain("rename from docs/old name.md\nrename to docs/new name.md\n");
    expect(text).toContain('--- "a/docs/old name.md"');
    expect(text).toMatch(/\+new\n\\ No newline at end of file\n$/);
    const parsed = toFileDiff(change, "k2");
    expect(parsed?.name).toBe("docs/new name.md");
    expect(parsed?.prevName).toBe("docs/old name.md");
    expect(parsed?.type).toBe("rename-changed");
  });

  it("marks additions and deletions against /dev/null", () => {
    const added = file("new.txt", {
      status: "added",
      oldMode: null,
      oldOid: null,
      hunks: [hunk(0, [["+", "hello"]])],
    });
    expect(filePatch(added)).toContain("new file mode 100644\n--- /dev/null\n+++ b/new.txt\n");
    expect(toFileDiff(added, "k3")?.type).toBe("new");
    const deleted = file("gone.txt", {
      status: "deleted",
      newMode: null,
      hunks: [hunk(1, [["-", "bye"]])],
    });
    expect(filePatch(deleted)).toContain(
      "deleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n",
    );
    expect(toFileDiff(deleted, "k4")?.type).toBe("deleted");
  });

  it("converts a 50,000-line diff for the viewer well under a second", () => {
    const diff = largeDiff(50, 1000);
    const started = performance.now();
    const parsed = diff.files.map((f, i) => toFileDiff(f, `big:${i}`));
    const took = performance.now() - started;
    expect(parsed.every((p) => p !== null)).toBe(true);
    expect(parsed.reduce((n, p) => n + (p?.unifiedLineCount ?? 0), 0)).toBe(50_000);
    expect(took).toBeLessThan(1000);
  });
});

describe("collapseReason", () => {
  it("collapses lockfiles and generated output, not ordinary sources", () => {
    expect(collapseReason("Cargo.lock")).toBe("lockfile");
    expect(collapseReason("web/package-lock.json")).toBe("lockfile");
    expect(collapseReason("pnpm-lock.yaml")).toBe("lockfile");
    expect(collapseReason("dist/app.js")).toBe("generated");
    expect(collapseReason("assets/app.min.js")).toBe("generated");
    expect(collapseReason("api/types.generated.ts")).toBe("generated");
    expect(collapseReason("src/lock.rs")).toBeNull();
    expect(collapseReason("src/generator.rs")).toBeNull();
    expect(collapseReason("package.json")).toBeNull();
  });
});

describe("fileNotes", () => {
  it("says what the lines cannot: renames, mode changes, binary, omitted content, links", () => {
    expect(
      fileNotes(file("b.rs", { status: "renamed", oldPath: "a.rs", similarity: 87 })),
    ).toContainEqual({
      kind: "renamed",
      text: "renamed from a.rs (87% similar)",
    });
    expect(
      fileNotes(file("run.sh", { oldMode: "100644", newMode: "100755", hunks: [] })),
    ).toContainEqual({
      kind: "mode",
      text: "mode 100644 → 100755",
    });
    expect(
      fileNotes(file("logo.png", { isBinary: true, hunks: [], oldSize: 2048, size: 4096 })),
    ).toContainEqual({
      kind: "binary",
      text: "binary file (2.0 KB → 4.0 KB)",
    });
    const big = fileNotes(
      file("data.csv", { contentOmitted: true, hunks: [], size: 3 * 1024 * 1024 }),
    );
    expect(big).toContainEqual({ kind: "omitted", text: "content omitted (3.0 MB, over 2 MB)" });
    expect(big.some((n) => n.kind === "binary")).toBe(false);
    expect(
      fileNotes(
        file("link", {
          status: "added",
          isSymlink: true,
          symlinkTarget: "../../etc/passwd",
          hunks: [],
        }),
      ),
    ).toContainEqual({ kind: "symlink", text: "symlink → ../../etc/passwd" });
    expect(fileNotes(file("gone.rs", { status: "deleted" }))).toContainEqual({
      kind: "deleted",
      text: "deleted",
    });
    expect(fileNotes(file("plain.rs"))).toEqual([]);
  });
});

describe("fileTree", () => {
  it("nests files under folders, sums counts and joins single-child folder chains", () => {
    const files = [
      file("src/pages/review/a.ts", { additions: 3, deletions: 1 }),
      file("src/pages/review/b.ts", { additions: 2, deletions: 0 }),
      file("src/main.ts", { additions: 1, deletions: 4 }),
      file("README.md", { additions: 5, deletions: 5 }),
    ];
    const tree = fileTree(files);
    expect(tree.map((n) => n.name)).toEqual(["src", "README.md"]);
    const src = tree[0];
    expect(src?.additions).toBe(6);
    expect(src?.deletions).toBe(5);
    expect(src?.children.map((n) => n.name)).toEqual(["pages/review", "main.ts"]);
    const review = src?.children[0];
    expect(review?.path).toBe("src/pages/review");
    expect(review?.children.map((n) => [n.name, n.file])).toEqual([
      ["a.ts", 0],
      ["b.ts", 1],
    ]);
    expect(fileTree([])).toEqual([]);
  });
});
