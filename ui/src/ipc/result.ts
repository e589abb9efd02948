// The one place that turns tauri-specta's `{status, data | error}` results into values or
// thrown `IpcFailure`s, so pages handle errors with try/catch and switch on `code`.
import type { ErrorCode, IpcError } from "./bindings";

export type IpcResult<T> = { status: "ok"; data: T } | { status: "error"; error: IpcError };

/** An IPC error with its code, thrown by `unwrap`. */
export class IpcFailure extends Error {
  readonly code: ErrorCode;

  constructor(error: IpcError) {
    super(error.message);
    this.name = "IpcFailure";
    this.code = error.code;
  }
}

/** Returns the data or throws an `IpcFailure` carrying the Rust error's code and message. */
export async function unwrap<T>(call: Promise<IpcResult<T>>): Promise<T> {
  const result = await call;
  if (result.status === "error") {
    throw new IpcFailure(result.error);
  }
  return result.data;
}

/** A short, human description of any error thrown by an IPC call. */
export function describeError(error: unknown): { code: ErrorCode | "unknown"; message: string } {
  if (error instanceof IpcFailure) {
    return { code: error.code, message: error.message };
  }
  if (error instanceof Error) {
    return { code: "unknown", message: error.message };
  }
  return { code: "unknown", message: String(error) };
}
