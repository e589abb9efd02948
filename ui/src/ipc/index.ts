// The UI's only door to Rust. Pages import from here, never from `./bindings` directly.

import { Channel } from "@tauri-apps/api/core";
import type {
  AddProviderRequest,
  AttemptLogEntry,
  AttemptRequest,
  AttemptState,
  AttemptStateChanged,
  CatalogRefreshed,
  CatalogRefreshProgress,
  CatalogRefreshStarted,
  Category,
  ClassifierSettings,
  ComposeRequest,
  CustomBlockInput,
  DiffAgainst,
  FeedItem,
  ImportMode,
  LineComment,
  MatchOverride,
  ModelQuery,
  Plan,
  PlanTaskRequest,
  RolePreset,
  RouteTaskRequest,
  RunBudgetChanged,
  RunDefaults,
  RunFilter,
  RunLogEntry,
  RunNodeChanged,
  RunOptions,
  RunState,
  RunStateChanged,
  SourceId,
  Theme,
  WorkerCli,
} from "./bindings";
import { commands, type DoctorReport, events } from "./bindings";

// How each state is shown (labels, pill tones, live and final), generated from Rust.
export {
  COMPARE_MODELS,
  COMPARE_WORKERS,
  STATE_WORDS,
  type StateWord,
  type Tone,
} from "./bindings";

import { unwrap } from "./result";

/** What following an attempt sends (the engine's feed). */
export type AttemptFeedItem = FeedItem<AttemptLogEntry, AttemptState>;
/** What following a run sends (the engine's feed). */
export type RunFeedItem = FeedItem<RunLogEntry, RunState>;

export type {
  AgentPreference,
  AppInfo,
  Check,
  ChecklistFix,
  ChecklistId,
  ChecklistItem,
  CheckStatus,
  ClassifierSettings,
  ConfinementMode,
  ConfinementReport,
  ConfinementSupport,
  Denial,
  DoctorReport,
  ErrorCode,
  FirstRunChecklist,
  LearningSavings,
  LearningSettings,
  LocalEndpoint,
  PaletteEntry,
  PaletteKind,
  SelfReview,
  SelfReviewState,
  Theme,
  UiPrefs,
  WorkerCli,
  WorkerCliStatus,
  WorkerSource,
  WorktreePrune,
  WorktreeUsage,
} from "./bindings";
export { describeError, IpcFailure } from "./result";

export const ipc = {
  appInfo: () => unwrap(commands.getAppInfo()),
  runDoctor: () => unwrap(commands.runDoctor()),
  lastDoctorReport: () => unwrap(commands.lastDoctorReport()),
  openLink: (url: string) => unwrap(commands.openLink(url)),
  recordFirstPaint: () => commands.recordFirstPaint(),
  /** Theme, whether the first-run checklist was dismissed and the Models plot hidden. */
  uiPrefs: () => unwrap(commands.uiPrefs()),
  setTheme: (theme: Theme) => unwrap(commands.setTheme(theme)),
  /** What a new user still needs, each item with its one-step fix. */
  firstRunChecklist: () => unwrap(commands.firstRunChecklist()),
  setChecklistDismissed: (dismissed: boolean) => unwrap(commands.setChecklistDismissed(dismissed)),
  /** Hides the Models page's plot (or shows it), from the next start on too. */
  setPlotHidden: (hidden: boolean) => unwrap(commands.setPlotHidden(hidden)),
  /** What the command palette can open that Rust knows: models, the newest runs and attempts. */
  paletteEntries: () => unwrap(commands.paletteEntries()),
  /** The classifier fallback's settings (ask a model when the classifier is unsure). */
  classifierSettings: () => unwrap(commands.classifierSettings()),
  /** How many outcomes routing learns from, since when, and the cascade skip threshold. */
  learningSettings: () => unwrap(commands.learningSettings()),
  /** Outcomes recorded until now stop moving picks and cascades. */
  resetLearning: () => unwrap(commands.resetLearning()),
  /** The estimate below which a routed cascade skips a rung (0: never). */
  setSkipBelow: (value: number) => unwrap(commands.setSkipBelow(value)),
  /** Each agent's own record and starting model. */
  agentPreferences: () => unwrap(commands.agentPreferences()),
  /** Sets (or with `null`, clears) the model an agent's runs start with; resolves to all. */
  setAgentStartModel: (agent: string, model: string | null) =>
    unwrap(commands.setAgentStartModel(agent, model)),
  /** Saves them; resolves to the settings as stored. */
  setClassifierSettings: (settings: ClassifierSettings) =>
    unwrap(commands.setClassifierSettings(settings)),
  /** Every agent CLI adapter: installed (version, path, how found) or missing and why. */
  listWorkerClis: () => unwrap(commands.listWorkerClis()),
  /** Sets (or with `null`, clears) the executable of one CLI; resolves to its new status. */
  setWorkerPath: (cli: WorkerCli, path: string | null) => unwrap(commands.setWorkerPath(cli, path)),
  setWorkerAccount: (cli: WorkerCli, own: boolean) => unwrap(commands.setWorkerAccount(cli, own)),
  /** Disk used by attempt worktrees, with the retention setting. */
  worktreeUsage: () => unwrap(commands.worktreeUsage()),
  /** Days failed or interrupted attempts keep their worktrees; resolves to the usage. */
  setWorktreeRetention: (days: number) => unwrap(commands.setWorktreeRetention(days)),
  /** Applies the retention now; resolves to what was removed and the usage afterwards. */
  pruneWorktrees: () => unwrap(commands.pruneWorktrees()),
  /** What confines workers here (bubblewrap, socat) and "Allow unconfined workers". */
  confinementSupport: () => unwrap(commands.confinementSupport()),
  /** Sets "Allow unconfined workers"; resolves to the support with the setting as stored. */
  setAllowUnconfined: (allowed: boolean) => unwrap(commands.setAllowUnconfined(allowed)),
};

export const ipcEvents = {
  /** Calls `handler` with every new doctor report; returns the unsubscribe function. */
  onDoctorUpdated: (handler: (report: DoctorReport) => void) =>
    events.doctorUpdated.listen((event) => handler(event.payload.report)),
};

// Roles composer.
export type {
  BlockKind,
  BlockSource,
  ComposedBlock,
  ComposedRole,
  ComposeRequest,
  CustomBlockInput,
  ImportMode,
  ImportReport,
  RoleBlock,
  RolePreset,
  RoleWarning,
  StackGroup,
} from "./bindings";

export const rolesIpc = {
  blocks: () => unwrap(commands.listRoleBlocks()),
  compose: (request: ComposeRequest) => unwrap(commands.composeRole(request)),
  presets: () => unwrap(commands.listRolePresets()),
  savePreset: (preset: RolePreset) => unwrap(commands.saveRolePreset(preset)),
  renamePreset: (from: string, to: string) => unwrap(commands.renameRolePreset(from, to)),
  /** Without `newName` the copy is named `<name> copy` (numbered when taken). */
  duplicatePreset: (name: string, newName: string | null = null) =>
    unwrap(commands.duplicateRolePreset(name, newName)),
  deletePreset: (name: string) => unwrap(commands.deleteRolePreset(name)),
  addCustomBlock: (input: CustomBlockInput) => unwrap(commands.addCustomBlock(input)),
  updateCustomBlock: (id: string, input: CustomBlockInput) =>
    unwrap(commands.updateCustomBlock(id, input)),
  deleteCustomBlock: (id: string) => unwrap(commands.deleteCustomBlock(id)),
  /** The roles file (custom blocks and presets) as JSON text. */
  exportRoles: () => unwrap(commands.exportRoles()),
  importRoles: (json: string, mode: ImportMode) => unwrap(commands.importRoles(json, mode)),
};

// Model catalog: the Models page.
export type {
  BenchmarkValue,
  CatalogMetrics,
  CatalogStatus,
  Category,
  CategoryScore,
  CategoryWeighting,
  HeldSnapshot,
  HoldReason,
  MatchOverride,
  MatchRule,
  MetricInfo,
  MetricUnit,
  MetricWeight,
  ModelCard,
  ModelDetail,
  ModelQuery,
  ModelSummary,
  OverrideAction,
  Pricing,
  RefreshId,
  RefreshProgress,
  RefreshReport,
  RefreshStage,
  RefreshTicket,
  RefreshTrigger,
  ScoreBreakdown,
  ScoreBrief,
  ScoreInput,
  ScoreTerm,
  SortKey,
  SourceId,
  SourceMatch,
  SourceRefresh,
  SourceStatus,
  Tag,
  TermStatus,
  Tier,
} from "./bindings";

export const catalogIpc = {
  /** Models matching the query, filtered and sorted by the engine. */
  listModels: (query: ModelQuery) => unwrap(commands.listModels(query)),
  /** One model's card with each category score taken apart. */
  getModel: (id: string) => unwrap(commands.getModel(id)),
  /** The metric registry (labels, units, direction) and the category weights. */
  metrics: () => unwrap(commands.catalogMetrics()),
  /** Two to five models side by side, in the order given. */
  compareModels: (ids: string[]) => unwrap(commands.compareModels(ids)),
  status: () => unwrap(commands.catalogStatus()),
  /**
   * Starts a refresh (network, or `fromDir` laid out like the corpus); returns at once with
   * the refresh to follow. When one is already running nothing new starts and the ticket
   * names the running one (`alreadyRunning`).
   */
  refresh: (fromDir: string | null = null) => unwrap(commands.refreshCatalog(fromDir)),
  /** "Accept anyway": applies a held-back snapshot without refetching; resolves to the status. */
  acceptHeld: (source: SourceId) => unwrap(commands.acceptHeldSnapshot(source)),
  /** Adds or removes a match; returns the model rebuilt, with its score breakdowns. */
  setMatchOverride: (correction: MatchOverride) => unwrap(commands.setMatchOverride(correction)),
  /** Forgets a stored correction; resolves to whether there was one. */
  clearMatchOverride: (source: SourceId, record: string, modelId: string) =>
    unwrap(commands.clearMatchOverride(source, record, modelId)),
};

// Every refresh event carries its refresh's id: a view follows the refresh it started (or
// found running) and ignores the others.
export const catalogEvents = {
  /** Calls `handler` when a refresh begins (here, elsewhere, or on the engine's schedule). */
  onRefreshStarted: (handler: (started: CatalogRefreshStarted) => void) =>
    events.catalogRefreshStarted.listen((event) => handler(event.payload)),
  /** Calls `handler` with each step of a running refresh; returns the unsubscribe function. */
  onRefreshProgress: (handler: (step: CatalogRefreshProgress) => void) =>
    events.catalogRefreshProgress.listen((event) => handler(event.payload)),
  /** Calls `handler` when a refresh ends, with its report or the error that stopped it. */
  onRefreshed: (handler: (outcome: CatalogRefreshed) => void) =>
    events.catalogRefreshed.listen((event) => handler(event.payload)),
};

// Provider keys and providers: the Keys page. No call ever returns a key: statuses carry
// presence, source, the origin a key is held for and the last four characters only.
export type {
  AddProviderRequest,
  KeySource,
  KeyStatus,
  LocalReachability,
  ProviderKind,
  ProviderStatus,
  ProviderTest,
} from "./bindings";

export const keysIpc = {
  /** Every provider with its base URL and key status; local servers are probed. */
  providers: () => unwrap(commands.listProviders()),
  /** Stores (or replaces) a key in the OS keychain; resolves to the new status (last 4). */
  setKey: (provider: string, key: string) => unwrap(commands.setProviderKey(provider, key)),
  /** Deletes a stored key; resolves to whether there was one. */
  deleteKey: (provider: string) => unwrap(commands.deleteProviderKey(provider)),
  /** One request to the provider's model list: latency and model count, or its own error. */
  test: (provider: string) => unwrap(commands.testProvider(provider)),
  /** `null` goes back to the built-in default URL. */
  setBaseUrl: (provider: string, baseUrl: string | null) =>
    unwrap(commands.setProviderBaseUrl(provider, baseUrl)),
  addProvider: (request: AddProviderRequest) => unwrap(commands.addProvider(request)),
  removeProvider: (provider: string) => unwrap(commands.removeProvider(provider)),
  /** Asks the user in a native dialog (raised by Rust, not by the page) whether the key held
   * for another origin may move to the provider's current one; resolves to the new status
   * (still `originMismatch` when the user declined). */
  confirmKeyOrigin: (provider: string) => unwrap(commands.confirmKeyOrigin(provider)),
};

// Routing: the Route page. An edited plan goes back through `revalidatePlan` before anything
// runs it.
export type {
  AssistVerdict,
  Budget,
  BudgetTier,
  BudgetTierView,
  Classification,
  Evidence,
  FeatureKind,
  FeatureWeight,
  FeedbackSummary,
  MatchedTerm,
  MetricValue,
  ModelInfo,
  Needs,
  PastPick,
  Pick,
  PickAnswer,
  Plan,
  PlanCheck,
  PlanEdge,
  PlanIssue,
  PlanStep,
  PlanTaskRequest,
  RankedModel,
  Reason,
  Recommendation,
  Rejections,
  RouteTaskRequest,
} from "./bindings";

export const routeIpc = {
  /** The budget tiers the forms offer, cheapest first, with their bands in words. */
  budgetTiers: () => commands.budgetTiers(),
  /** How a task reads: category, confidence, signals and the words that decided it. */
  classify: (task: string) => unwrap(commands.classifyTask(task)),
  /** The best model for the task with its reason; recorded, so it can be rated by `pickId`. */
  pick: (request: RouteTaskRequest) => unwrap(commands.pickModel(request)),
  /** The best `count` (1–10) models, one per provider first. */
  recommend: (request: RouteTaskRequest, count: number) =>
    unwrap(commands.recommendModels(request, count)),
  /** The task as sequential steps or a swarm DAG, with a model per step. */
  plan: (request: PlanTaskRequest) => unwrap(commands.planTask(request)),
  /** An edited plan with edges and waves recomputed, and its problems. */
  revalidate: (plan: Plan) => unwrap(commands.revalidatePlan(plan)),
  /** Rates a model 1–5 in a category; resolves to its ratings there. */
  rateModel: (modelId: string, category: Category, rating: number) =>
    unwrap(commands.rateModel(modelId, category, rating)),
  /** Rates a past pick 1–5 (replacing an earlier rating); resolves to the pick. */
  ratePick: (pickId: number, rating: number) => unwrap(commands.ratePick(pickId, rating)),
  /** The newest picks first, with their ratings. */
  recentPicks: (limit: number) => unwrap(commands.recentPicks(limit)),
  /** What routing learned, and what its outcomes cost against the static picks. */
  learningSettings: () => unwrap(commands.learningSettings()),
};

// Attempts and review: the Review page. A worker edits a worktree; Switchyard captures the
// diff, runs its gates and its own verification; the user decides. Worker output streams
// through a Channel (`watchAttempt`) that first replays what the page missed.
export type {
  AttemptError,
  AttemptLog,
  AttemptLogEntry,
  AttemptRequest,
  AttemptReview,
  AttemptState,
  AttemptSummary,
  CapturedDiff,
  CommandOutcome,
  CommandVerification,
  CompareSummary,
  DiffAgainst,
  DiffLine,
  FileChange,
  FileStatus,
  Finding,
  GateName,
  GateResult,
  GateTitle,
  Hunk,
  IntegrationRecord,
  LineComment,
  LineKind,
  RepoProbe,
  ReviewDecision,
  TestCounts,
  ToolAction,
  ToolStatus,
  TranscriptItem,
  TranscriptUpdate,
  Usage,
  VerificationRecord,
  WorkerEvent,
} from "./bindings";

export const reviewIpc = {
  /** Every attempt, newest first. */
  list: () => unwrap(commands.listAttempts()),
  /** One attempt with its diff, gates, verification, usage and decision. */
  review: (id: string) => unwrap(commands.attemptReview(id)),
  /**
   * One file of the attempt's diff against the base (or, for a revision, against the previous
   * attempt) with all its hunks (for a file marked `hunksDeferred`).
   */
  fileDiff: (id: string, path: string, against: DiffAgainst = "base") =>
    unwrap(commands.attemptFileDiff(id, path, against)),
  /** Log entries after `afterSeq` (0 = from the start). */
  log: (id: string, afterSeq: number) => unwrap(commands.attemptLog(id, afterSeq)),
  /**
   * The engine's feed of the attempt: its state, the log after `afterSeq`, new entries as they
   * are stored (also when another process runs it), state changes, then `end`. Resolves once
   * the stream is set up.
   */
  watch: (id: string, afterSeq: number, onItem: (item: AttemptFeedItem) => void) => {
    const channel = new Channel<AttemptFeedItem>();
    channel.onmessage = onItem;
    return unwrap(commands.watchAttempt(id, afterSeq, channel));
  },
  /** Validates, pins the base, queues; returns at once. */
  start: (request: AttemptRequest) => unwrap(commands.startAttempt(request)),
  cancel: (id: string) => unwrap(commands.cancelAttempt(id)),
  /** Re-captures and re-verifies an interrupted attempt; resolves once it is in review. */
  recover: (id: string) => unwrap(commands.recoverAttempt(id)),
  /** Commits the verified tree and (with `integrate`) lands it on the target branch. */
  approve: (id: string, message: string, integrate = true) =>
    unwrap(commands.approveAttempt({ id, message, integrate })),
  reject: (id: string, reason: string) => unwrap(commands.rejectAttempt(id, reason)),
  /** Supersedes the attempt with a new one of the same worker on the same worktree. */
  requestChanges: (id: string, comment: string, lines: LineComment[]) =>
    unwrap(commands.requestChanges({ id, comment, lines })),
  /** The same task for 2–5 workers, one attempt each, from the same base. */
  startCompare: (request: AttemptRequest, workers: string[]) =>
    unwrap(commands.startCompare(request, workers)),
  /** A compare group with its attempts, oldest first. */
  compareGroup: (id: string) => unwrap(commands.compareGroup(id)),
  /** Approves and integrates `winner`; rejects the others of the compare group. */
  pick: (compare: string, winner: string, message: string) =>
    unwrap(commands.pickAttempt({ compare, winner, message })),
  /** The repository's top level, branch, head, dirty paths and default verification. */
  detectVerification: (repo: string) => unwrap(commands.detectVerification(repo)),
  /** A native folder picker raised by Rust; `null` when the user closed it. */
  pickRepoFolder: () => unwrap(commands.pickRepoFolder()),
};

export const reviewEvents = {
  /** Calls `handler` whenever an attempt changes state (here or in another Switchyard). */
  onAttemptState: (handler: (change: AttemptStateChanged) => void) =>
    events.attemptStateChanged.listen((event) => handler(event.payload)),
};

// Settings → Connect an agent: the MCP snippets for each agent host and the approve toggle.
export type {
  AgentClient,
  AgentConfig,
  AgentConnect,
  SnippetFormat,
} from "./bindings";

export const agentsIpc = {
  /** Every MCP host's snippet for the installed `switchyard` binary, and the approve setting. */
  connectConfigs: () => unwrap(commands.agentConnectConfigs()),
  /** Lets agents approve work whose gates all passed (`true`), or not; resolves to the result. */
  setAgentsMayApprove: (allowed: boolean) => unwrap(commands.setAgentsMayApprove(allowed)),
};

// Runs: the Runs page. A run executes one task across one or many models in one of five
// modes under limits and a hard USD cap. Its log and its nodes' streamed text arrive through
// a Channel (`watch`) that first replays what the page has not seen.
export type {
  CallPurpose,
  CallState,
  ContextItem,
  ContextTrace,
  FailureSignal,
  JudgeSpec,
  Ladder,
  NodeKind,
  NodeOutput,
  NodeRole,
  NodeSpec,
  NodeState,
  NodeTry,
  NodeView,
  RunBudgetChanged,
  RunDefaults,
  RunDetail,
  RunError,
  RunFilter,
  Rung,
  RunLimits,
  RunLog,
  RunLogEntry,
  RunMode,
  RunNodeChanged,
  RunOptions,
  RunOutput,
  RunPreview,
  RunReason,
  RunState,
  RunStateChanged,
  RunSummary,
  SpendReport,
  SpendTotal,
} from "./bindings";

export const runsIpc = {
  /** What a request would run (nodes, ladder or plan, warnings, worst case); records nothing. */
  preview: (options: RunOptions) => unwrap(commands.previewRun(options)),
  /** Records and queues the run; returns at once. */
  start: (options: RunOptions) => unwrap(commands.startRun(options)),
  /** Continues a paused run. */
  resume: (id: string) => unwrap(commands.resumeRun(id)),
  list: (filter: RunFilter) => unwrap(commands.listRuns(filter)),
  detail: (id: string) => unwrap(commands.runDetail(id)),
  log: (id: string, afterSeq: number) => unwrap(commands.runLog(id, afterSeq)),
  /** The run's result and each node's output (or only `node`'s). */
  output: (id: string, node: string | null = null) => unwrap(commands.runOutput(id, node)),
  /**
   * Replays the log after `afterSeq` and the text running nodes streamed so far, then streams
   * new entries and text until the run is no longer live (an `end` item). Resolves once the
   * stream is set up.
   */
  watch: (id: string, afterSeq: number, onItem: (item: RunFeedItem) => void) => {
    const channel = new Channel<RunFeedItem>();
    channel.onmessage = onItem;
    return unwrap(commands.watchRun(id, afterSeq, channel));
  },
  /** Stops every call and worker of the run; resolves once it is canceled. */
  cancel: (id: string) => unwrap(commands.cancelRun(id)),
  /** Resumes an interrupted run (finished nodes are kept). */
  recover: (id: string) => unwrap(commands.recoverRun(id)),
  /** Approves a code run in review (its one result, or the collective member `attempt`). */
  approve: (id: string, attempt: string | null = null, message = "") =>
    unwrap(commands.approveRun(id, attempt, message)),
  /** Rejects every result of a code run in review. */
  reject: (id: string, reason: string) => unwrap(commands.rejectRun(id, reason)),
  rateNode: (run: string, node: string, rating: number) =>
    unwrap(commands.rateRunNode(run, node, rating)),
  /** Spend and savings since `sinceMs` (all when `null`). */
  spend: (sinceMs: number | null = null) => unwrap(commands.runsSpend(sinceMs)),
  defaults: () => unwrap(commands.runDefaults()),
  setDefaults: (defaults: RunDefaults) => unwrap(commands.setRunDefaults(defaults)),
};

export const runsEvents = {
  /** Calls `handler` whenever a run this app executes changes state (others: poll or watch). */
  onRunState: (handler: (change: RunStateChanged) => void) =>
    events.runStateChanged.listen((event) => handler(event.payload)),
  onRunNode: (handler: (change: RunNodeChanged) => void) =>
    events.runNodeChanged.listen((event) => handler(event.payload)),
  onRunBudget: (handler: (change: RunBudgetChanged) => void) =>
    events.runBudgetChanged.listen((event) => handler(event.payload)),
};
