import { describe, expect, it } from "vitest";
import { emptyForm, formFromBlock, inputFromForm, missingField } from "./blockForm";
import { BLOCKS } from "./fixtures.test-util";

describe("custom block form", () => {
  it("splits aliases, and sends a group only for stack blocks", () => {
    const form = {
      ...emptyForm("stack"),
      title: "Bun",
      description: "Fast JS runtime",
      prompt: "Use Bun.",
      group: "framework" as const,
      aliases: " BunJS, , bun-runtime ",
    };
    expect(inputFromForm(form)).toEqual({
      kind: "stack",
      title: "Bun",
      description: "Fast JS runtime",
      prompt: "Use Bun.",
      aliases: ["bunjs", "bun-runtime"],
      group: "framework",
    });
    expect(inputFromForm({ ...form, kind: "guardrail" }).group).toBeNull();
    expect(inputFromForm({ ...form, group: "" }).group).toBeNull();
  });

  it("starts from a built-in with a suffixed title, and names the first missing field", () => {
    const pg = BLOCKS.find((b) => b.id === "postgresql");
    if (!pg) throw new Error("fixture");
    const form = formFromBlock(pg, " (custom)");
    expect(form.title).toBe("PostgreSQL (custom)");
    expect(form.aliases).toBe("pg, postgres");
    expect(form.group).toBe("database");
    expect(missingField(form)).toBeNull();
    expect(missingField(emptyForm())).toBe("a title");
    expect(missingField({ ...form, prompt: "  " })).toBe("the prompt text");
  });
});
