//! `switchyard_compose_role` and `switchyard_role_blocks`: the roles composer.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchyard_core::roles::{BlockKind, BlockSource, ComposeRequest, RoleBlock, StackGroup};

use crate::reply;
use crate::server::Server;

/// `switchyard_compose_role`'s input: block ids (or aliases) and the task.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ComposeInput {
    /// What the model should do.
    task: String,
    /// Persona id (e.g. `backend-engineer`).
    #[serde(default)]
    persona: Option<String>,
    /// Stack ids in prompt order (e.g. `rust`, `postgresql`).
    #[serde(default)]
    stack: Vec<String>,
    /// Domain id (e.g. `fintech`).
    #[serde(default)]
    domain: Option<String>,
    /// Output format id (e.g. `patch-only`).
    #[serde(default)]
    format: Option<String>,
    /// Guardrail ids (e.g. `security`, `minimal-diff`).
    #[serde(default)]
    guardrails: Vec<String>,
    /// A saved preset to start from: persona, domain and format given here override it;
    /// stack and guardrails extend it.
    #[serde(default)]
    preset: Option<String>,
}

/// `switchyard_role_blocks`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct BlocksInput {
    /// Only blocks of this kind.
    #[serde(default)]
    kind: Option<KindInput>,
}

/// A block kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum KindInput {
    Persona,
    Stack,
    Domain,
    Format,
    Guardrail,
}

impl From<KindInput> for BlockKind {
    fn from(kind: KindInput) -> Self {
        match kind {
            KindInput::Persona => BlockKind::Persona,
            KindInput::Stack => BlockKind::Stack,
            KindInput::Domain => BlockKind::Domain,
            KindInput::Format => BlockKind::Format,
            KindInput::Guardrail => BlockKind::Guardrail,
        }
    }
}

/// One block as listed (its prompt text is left out: compose shows it).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BlockLine {
    id: String,
    kind: BlockKind,
    title: String,
    description: String,
    aliases: Vec<String>,
    source: BlockSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<StackGroup>,
}

impl From<RoleBlock> for BlockLine {
    fn from(block: RoleBlock) -> Self {
        Self {
            id: block.id,
            kind: block.kind,
            title: block.title,
            description: block.description,
            aliases: block.aliases,
            source: block.source,
            group: block.group,
        }
    }
}

#[derive(Debug, Serialize)]
struct Blocks {
    blocks: Vec<BlockLine>,
}

#[tool_router(router = roles_tools, vis = "pub(crate)")]
impl Server {
    /// Composes a role prompt.
    #[tool(
        name = "switchyard_compose_role",
        description = "Compose a role prompt from blocks (persona, stack, domain, output format, \
                       guardrails) or a saved preset, plus the task. Returns hasRole, fullPrompt \
                       (role sections then the task), warnings for unknown ids, the blocks used \
                       and a token estimate. List ids with switchyard_role_blocks.",
        annotations(
            title = "Compose a role",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn compose_role(&self, Parameters(input): Parameters<ComposeInput>) -> CallToolResult {
        let request = ComposeRequest {
            task: input.task,
            persona: input.persona,
            stack: input.stack,
            domain: input.domain,
            format: input.format,
            guardrails: input.guardrails,
            preset: input.preset,
        };
        reply::reply(self.engine().compose_role(request).await)
    }

    /// Lists the role blocks.
    #[tool(
        name = "switchyard_role_blocks",
        description = "The roles composer's blocks (built-in and the user's custom ones): id, kind, \
                       title, description and aliases, optionally of one kind.",
        annotations(title = "Role blocks", read_only_hint = true, open_world_hint = false)
    )]
    async fn role_blocks(&self, Parameters(input): Parameters<BlocksInput>) -> CallToolResult {
        let kind = input.kind.map(BlockKind::from);
        match self.engine().role_blocks().await {
            Ok(blocks) => reply::ok(&Blocks {
                blocks: blocks
                    .into_iter()
                    .filter(|b| kind.is_none_or(|k| b.kind == k))
                    .map(BlockLine::from)
                    .collect(),
            }),
            Err(error) => reply::engine_error(&error),
        }
    }
}
