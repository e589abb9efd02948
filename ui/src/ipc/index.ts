// The UI's only door to Rust. Pages import from here, never from `./bindings` directly.
import { commands, type DoctorReport_Serialize, events } from "./bindings";
import { unwrap } from "./result";

// Rust types that also derive Deserialize are exported in two shapes; the UI receives what
// Rust serializes, so it names the `_Serialize` shape.
export type {
  AppInfo_Serialize as AppInfo,
  Check,
  CheckStatus,
  DoctorReport_Serialize as DoctorReport,
  ErrorCode,
  LocalEndpoint_Serialize as LocalEndpoint,
  WorkerCli_Serialize as WorkerCli,
} from "./bindings";
export { describeError, IpcFailure } from "./result";

export const ipc = {
  appInfo: () => unwrap(commands.getAppInfo()),
  runDoctor: () => unwrap(commands.runDoctor()),
  lastDoctorReport: () => unwrap(commands.lastDoctorReport()),
  openLink: (url: string) => unwrap(commands.openLink(url)),
  recordFirstPaint: () => commands.recordFirstPaint(),
};

export const ipcEvents = {
  /** Calls `handler` with every new doctor report; returns the unsubscribe function. */
  onDoctorUpdated: (handler: (report: DoctorReport_Serialize) => void) =>
    events.doctorUpdated.listen((event) => handler(event.payload.report)),
};
