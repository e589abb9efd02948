// The custom block form's state and its conversion to what the engine accepts.
import type { BlockKind, CustomBlockInput, RoleBlock, StackGroup } from "../../ipc";

export interface BlockForm {
  kind: BlockKind;
  title: string;
  description: string;
  prompt: string;
  /** Only for stack blocks; "" = none. */
  group: StackGroup | "";
  /** Comma-separated other names. */
  aliases: string;
}

export function emptyForm(kind: BlockKind = "guardrail"): BlockForm {
  return { kind, title: "", description: "", prompt: "", group: "", aliases: "" };
}

/** The form filled from a block: to edit a custom one, or to start from a built-in. */
export function formFromBlock(block: RoleBlock, titleSuffix = ""): BlockForm {
  return {
    kind: block.kind,
    title: `${block.title}${titleSuffix}`,
    description: block.description,
    prompt: block.prompt,
    group: block.group ?? "",
    aliases: block.aliases.join(", "),
  };
}

/** What to send: aliases split on commas, blanks dropped; a group only for stack blocks. */
export function inputFromForm(form: BlockForm): CustomBlockInput {
  return {
    kind: form.kind,
    title: form.title,
    description: form.description,
    prompt: form.prompt,
    aliases: form.aliases
      .split(",")
      .map((a) => a.trim().toLowerCase())
      .filter(Boolean),
    group: form.kind === "stack" && form.group !== "" ? form.group : null,
  };
}

/** The first field still empty, for the Save button's hint; `null` when the form is complete. */
export function missingField(form: BlockForm): string | null {
  if (form.title.trim() === "") return "a title";
  if (form.description.trim() === "") return "a one-line description";
  if (form.prompt.trim() === "") return "the prompt text";
  return null;
}
