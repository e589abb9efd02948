// Small hand-written blocks for the Roles tests (not the real library).
import type { BlockKind, RoleBlock, StackGroup } from "../../ipc";

export function block(
  kind: BlockKind,
  id: string,
  title: string,
  extra: { description?: string; aliases?: string[]; group?: StackGroup; custom?: boolean } = {},
): RoleBlock {
  return {
    id,
    kind,
    title,
    description: extra.description ?? `${title} block`,
    prompt: `Prompt of ${title}.`,
    aliases: extra.aliases ?? [],
    group: extra.group ?? null,
    source: extra.custom ? "custom" : "builtin",
  };
}

export const BLOCKS: RoleBlock[] = [
  block("persona", "backend-engineer", "Backend engineer", { description: "Services and APIs" }),
  block("persona", "frontend-engineer", "Frontend engineer", { description: "Accessible UIs" }),
  block("persona", "sre", "Site reliability engineer", { description: "Keeps production up" }),
  block("stack", "rust", "Rust", { group: "language" }),
  block("stack", "react", "React", { group: "framework" }),
  block("stack", "postgresql", "PostgreSQL", { aliases: ["pg", "postgres"], group: "database" }),
  block("stack", "typescript", "TypeScript", { aliases: ["ts"], group: "language" }),
  block("domain", "security", "Security products"),
  block("format", "patch-only", "Patch only"),
  block("guardrail", "security", "Security", { description: "No injection, no secrets in logs" }),
  block("guardrail", "minimal-diff", "Minimal diff"),
  block("guardrail", "custom:house-rules", "House rules", { custom: true }),
];
