// Attempts, diffs and gates shaped exactly as the attempt commands return them, for tests
// and for the large-diff check.
import type {
  AttemptLogEntry,
  AttemptReview,
  AttemptSummary,
  CapturedDiff,
  CommandVerification,
  FileChange,
  GateResult,
  Hunk,
} from "../../ipc";

export function summary(id: string, over: Partial<AttemptSummary> = {}): AttemptSummary {
  return {
    id,
    state: "review",
    worker: "exec:./fix.sh",
    workerVersion: null,
    task: `Fix the off-by-one in the pager (${id})`,
    repo: "/home/me/project",
    base: "0123456789abcdef0123456789abcdef01234567",
    targetBranch: "main",
    parent: null,
    compare: null,
    launcher: "app",
    createdMs: 1_790_000_000_000,
    updatedMs: 1_790_000_060_000,
    elapsedMs: 42_000,
    filesChanged: 1,
    additions: 2,
    deletions: 1,
    gatesPassed: true,
    costUsd: null,
    error: null,
    confinement: "bwrap",
    ...over,
    // What the engine says for this state (the fixture's state may come from `over`).
    live:
      over.live ?? ["queued", "preparing", "running", "verifying"].includes(over.state ?? "review"),
  };
}

export function hunk(
  oldStart: number,
  lines: Array<[" " | "+" | "-", string]>,
  section = "",
): Hunk {
  let oldLine = oldStart;
  let newLine = oldStart;
  const out = lines.map(([sign, text]) => {
    const kind = sign === "+" ? "added" : sign === "-" ? "removed" : "context";
    const line = {
      kind,
      text,
      oldLine: kind === "added" ? null : oldLine,
      newLine: kind === "removed" ? null : newLine,
      noNewline: false,
    } as const;
    if (kind !== "added") oldLine += 1;
    if (kind !== "removed") newLine += 1;
    return line;
  });
  return {
    oldStart,
    oldLines: oldLine - oldStart,
    newStart: oldStart,
    newLines: newLine - oldStart,
    section,
    lines: out,
  };
}

export function file(path: string, over: Partial<FileChange> = {}): FileChange {
  const hunks = over.hunks ?? [
    hunk(10, [
      [" ", "fn page(n: usize) -> usize {"],
      ["-", "    n * SIZE + 1"],
      ["+", "    n * SIZE"],
      ["+", "    // pages start at zero"],
      [" ", "}"],
    ]),
  ];
  const additions = hunks.flatMap((h) => h.lines).filter((l) => l.kind === "added").length;
  const deletions = hunks.flatMap((h) => h.lines).filter((l) => l.kind === "removed").length;
  return {
    path,
    oldPath: null,
    status: "modified",
    oldMode: "100644",
    newMode: "100644",
    oldOid: "1111111111111111111111111111111111111111",
    newOid: "2222222222222222222222222222222222222222",
    similarity: null,
    isBinary: false,
    isSymlink: false,
    symlinkTarget: null,
    additions,
    deletions,
    size: 1200,
    oldSize: 1190,
    contentOmitted: false,
    hunks,
    ...over,
  };
}

export function capturedDiff(files: FileChange[]): CapturedDiff {
  return {
    base: "0123456789abcdef0123456789abcdef01234567",
    sha256: "9f2c4e0b7a1d3c5e8f6a2b4d0c1e3f5a7b9d2c4e6f8a0b1c3d5e7f9a2b4c6d8e",
    patchBytes: 4096,
    files,
    additions: files.reduce((n, f) => n + f.additions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
  };
}

export function gate(
  name: GateResult["name"],
  passed: boolean,
  over: Partial<GateResult> = {},
): GateResult {
  return {
    name,
    passed,
    detail: passed ? `${name}: nothing blocks` : `${name}: blocked`,
    evidence: [],
    ...over,
  };
}

export function verifyCommand(
  command: string,
  passed: boolean,
  over: Partial<CommandVerification> = {},
): CommandVerification {
  return {
    command,
    outcome: "exited",
    exitCode: passed ? 0 : 101,
    signal: null,
    passed,
    durationMs: 1830,
    counts: [
      {
        runner: "cargo",
        unit: "tests",
        passed: passed ? 12 : 11,
        failed: passed ? 0 : 1,
        skipped: 0,
        errors: 0,
      },
    ],
    logSha256: "ab".repeat(32),
    logBytes: 5120,
    logTail: passed
      ? "test result: ok. 12 passed; 0 failed"
      : "test pager::zero ... FAILED\ntest result: FAILED. 11 passed; 1 failed",
    error: null,
    ...over,
  };
}

/** What the engine sends as `gatesNotRun` for `gates` (`core::review::gates::not_run`). */
const GATES_IN_ORDER = [
  "lockedPaths",
  "escape",
  "secrets",
  "size",
  "repository",
  "verification",
] as const;

/** What the engine sends as `gateTitles` (`GateName::titles`). */
const GATE_TITLES: AttemptReview["gateTitles"] = [
  { name: "lockedPaths", title: "Locked paths" },
  { name: "escape", title: "Escape" },
  { name: "secrets", title: "Secrets" },
  { name: "size", title: "Size" },
  { name: "repository", title: "Repository" },
  { name: "verification", title: "Verification" },
];

export function review(id: string, over: Partial<AttemptReview> = {}): AttemptReview {
  const files = [file("src/pager.rs")];
  const built: AttemptReview = {
    summary: summary(id),
    diff: capturedDiff(files),
    previous: null,
    gates: [
      gate("lockedPaths", true),
      gate("escape", true),
      gate("secrets", true),
      gate("size", true),
      gate("repository", true),
      gate("verification", true),
    ],
    verification: { passed: true, durationMs: 1900, commands: [verifyCommand("cargo test", true)] },
    selfReview: null,
    usage: { input: 1200, output: 300, cached: 0, costUsd: 0.0042, estimated: true },
    decision: null,
    integration: null,
    canApprove: true,
    approveBlocked: null,
    verifyCommands: ["cargo test"],
    confinement: {
      mode: "bwrap",
      network: "none",
      allowed: [],
      writable: [`/data/worktrees/${id}`, `/data/scratch/${id}/tmp`],
      denied: [],
      deniedMore: 0,
    },
    gatesNotRun: [],
    gateTitles: GATE_TITLES,
    ...over,
  };
  return {
    ...built,
    gatesNotRun:
      over.gatesNotRun ??
      GATES_IN_ORDER.filter((name) => !built.gates.some((g) => g.name === name)),
  };
}

/** A diff of `files` files with `linesPerFile` changed lines each (half added, half context). */
export function largeDiff(files: number, linesPerFile: number): CapturedDiff {
  const out: FileChange[] = [];
  for (let f = 0; f < files; f += 1) {
    const lines: Array<[" " | "+" | "-", string]> = [];
    for (let i = 0; i < linesPerFile; i += 1) {
      lines.push([i % 2 === 0 ? "+" : " ", `    let value_${i} = compute(${i}, "file ${f}");`]);
    }
    out.push(
      file(`src/generated_module_${String(f).padStart(3, "0")}/mod.rs`, {
        hunks: [hunk(1, lines)],
      }),
    );
  }
  return capturedDiff(out);
}

export function logEntry(seq: number, entry: AttemptLogEntry["entry"]): AttemptLogEntry {
  return { seq, atMs: 1_790_000_000_000 + seq * 1000, entry };
}
