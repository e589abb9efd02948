import { describe, expect, it } from "vitest";
import { describeError, IpcFailure, unwrap } from "./result";

describe("unwrap", () => {
  it("returns data of ok results", async () => {
    await expect(unwrap(Promise.resolve({ status: "ok" as const, data: 42 }))).resolves.toBe(42);
  });

  it("throws an IpcFailure carrying code and message", async () => {
    const call = unwrap(
      Promise.resolve({
        status: "error" as const,
        error: { code: "startup" as const, message: "cannot open /x" },
      }),
    );
    await expect(call).rejects.toBeInstanceOf(IpcFailure);
    await expect(call).rejects.toMatchObject({ code: "startup", message: "cannot open /x" });
  });
});

describe("describeError", () => {
  it("keeps the code of IPC failures and marks others unknown", () => {
    expect(describeError(new IpcFailure({ code: "database", message: "locked" }))).toEqual({
      code: "database",
      message: "locked",
    });
    expect(describeError(new Error("boom"))).toEqual({ code: "unknown", message: "boom" });
    expect(describeError("text")).toEqual({ code: "unknown", message: "text" });
  });
});
