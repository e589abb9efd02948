import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { seriousA11yFindings } from "./axe";

afterEach(cleanup);

describe("the accessibility check", () => {
  it("finds what a keyboard or screen-reader user could not use", async () => {
    render(
      <div>
        <button type="button" />
        <input type="text" />
      </div>,
    );
    const findings = await seriousA11yFindings();
    expect(findings.some((f) => f.includes("button-name"))).toBe(true);
    expect(findings.some((f) => f.includes("label"))).toBe(true);
  });

  it("passes named controls", async () => {
    render(
      <div>
        <button type="button">Approve</button>
        <label>
          Task <input type="text" />
        </label>
      </div>,
    );
    expect(await seriousA11yFindings()).toEqual([]);
  });
});
