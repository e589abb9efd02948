//! `roles`: the block library, composing a role prompt, presets, and the roles file.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;
use switchyard_core::error::ErrorCode;
use switchyard_core::roles::{
    BlockKind, BlockSource, ComposeRequest, ImportMode, RoleBlock, StackGroup,
};
use switchyard_engine::Engine;

use crate::output::{print, CliError};

/// `switchyard roles …`
#[derive(Args)]
pub struct RolesArgs {
    #[command(subcommand)]
    command: RolesCommand,
}

#[derive(Subcommand)]
enum RolesCommand {
    /// List every block (built-in and custom) by kind.
    Blocks,
    /// Compose a role prompt from blocks and a task; unknown ids are warnings.
    Compose(ComposeArgs),
    /// List saved presets.
    Presets,
    /// Write every custom block and preset as a roles file (JSON).
    Export {
        /// Write to this file instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Import a roles file; nothing changes unless the whole file is valid.
    Import {
        /// The roles file to read.
        file: PathBuf,
        /// Delete every custom block and preset first (default: merge).
        #[arg(long)]
        replace: bool,
    },
}

#[derive(Args)]
struct ComposeArgs {
    /// What the model should do.
    #[arg(long)]
    task: String,
    /// Persona id (e.g. backend-engineer).
    #[arg(long)]
    persona: Option<String>,
    /// Stack ids, comma-separated, in prompt order (e.g. rust,postgresql).
    #[arg(long, value_delimiter = ',')]
    stack: Vec<String>,
    /// Domain id (e.g. fintech).
    #[arg(long)]
    domain: Option<String>,
    /// Output format id (e.g. patch-only).
    #[arg(long)]
    format: Option<String>,
    /// Guardrail ids, comma-separated (e.g. security,minimal-diff).
    #[arg(long, value_delimiter = ',')]
    guardrails: Vec<String>,
    /// Start from a saved preset; persona, domain and format above override it, stack and
    /// guardrails extend it.
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
}

/// One block as `roles blocks` lists it (the prompt text is left out: `compose` shows it).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BlockLine {
    id: String,
    title: String,
    description: String,
    source: BlockSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<StackGroup>,
}

/// `roles blocks --json`: one list per kind, in prompt section order.
#[derive(Serialize, Default)]
struct BlocksByKind {
    persona: Vec<BlockLine>,
    stack: Vec<BlockLine>,
    domain: Vec<BlockLine>,
    format: Vec<BlockLine>,
    guardrail: Vec<BlockLine>,
}

impl BlocksByKind {
    fn new(blocks: Vec<RoleBlock>) -> Self {
        let mut by_kind = Self::default();
        for block in blocks {
            let list = match block.kind {
                BlockKind::Persona => &mut by_kind.persona,
                BlockKind::Stack => &mut by_kind.stack,
                BlockKind::Domain => &mut by_kind.domain,
                BlockKind::Format => &mut by_kind.format,
                BlockKind::Guardrail => &mut by_kind.guardrail,
            };
            list.push(BlockLine {
                id: block.id,
                title: block.title,
                description: block.description,
                source: block.source,
                group: block.group,
            });
        }
        by_kind
    }

    fn lists(&self) -> [(BlockKind, &[BlockLine]); 5] {
        [
            (BlockKind::Persona, &self.persona),
            (BlockKind::Stack, &self.stack),
            (BlockKind::Domain, &self.domain),
            (BlockKind::Format, &self.format),
            (BlockKind::Guardrail, &self.guardrail),
        ]
    }
}

/// Where `roles export --out` wrote the file.
#[derive(Serialize)]
struct Exported {
    out: String,
    bytes: usize,
}

/// Runs one `roles` verb.
pub async fn run(engine: &Engine, args: RolesArgs, json: bool) -> Result<ExitCode, CliError> {
    match args.command {
        RolesCommand::Blocks => blocks(engine, json).await,
        RolesCommand::Compose(compose) => compose_role(engine, compose, json).await,
        RolesCommand::Presets => presets(engine, json).await,
        RolesCommand::Export { out } => export(engine, out, json).await,
        RolesCommand::Import { file, replace } => import(engine, file, replace, json).await,
    }
}

async fn blocks(engine: &Engine, json: bool) -> Result<ExitCode, CliError> {
    let by_kind = BlocksByKind::new(engine.role_blocks().await?);
    print(&by_kind, json, |b| {
        let mut out = Vec::new();
        for (kind, lines) in b.lists() {
            out.push(format!("{} ({})", kind.id(), lines.len()));
            for line in lines {
                let custom = if line.source == BlockSource::Custom {
                    " [custom]"
                } else {
                    ""
                };
                out.push(format!("  {:<22} {}{custom}", line.id, line.title));
            }
        }
        out.join("\n")
    })
}

async fn compose_role(
    engine: &Engine,
    args: ComposeArgs,
    json: bool,
) -> Result<ExitCode, CliError> {
    let request = ComposeRequest {
        task: args.task,
        persona: args.persona,
        stack: args.stack,
        domain: args.domain,
        format: args.format,
        guardrails: args.guardrails,
        preset: args.preset,
    };
    let role = engine.compose_role(request).await?;
    if !json {
        for warning in &role.warnings {
            eprintln!("warning: {}", warning.message);
        }
    }
    print(&role, json, |r| r.full_prompt.trim_end().to_owned())
}

async fn presets(engine: &Engine, json: bool) -> Result<ExitCode, CliError> {
    let presets = engine.list_role_presets().await?;
    print(&presets, json, |list| {
        if list.is_empty() {
            return "no presets yet (save one in the app's Roles page)".to_owned();
        }
        list.iter()
            .map(|p| {
                let mut parts: Vec<String> = Vec::new();
                parts.extend(p.persona.iter().cloned());
                parts.extend(p.stack.iter().cloned());
                parts.extend(p.domain.iter().cloned());
                parts.extend(p.format.iter().cloned());
                parts.extend(p.guardrails.iter().cloned());
                format!("{:<24} {}", p.name, parts.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

async fn export(engine: &Engine, out: Option<PathBuf>, json: bool) -> Result<ExitCode, CliError> {
    let file = engine.export_roles().await?;
    let Some(path) = out else {
        // The roles file is JSON already; `--json` changes nothing here.
        println!("{file}");
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::write(&path, format!("{file}\n")).map_err(|e| io_error("write", &path, &e))?;
    let exported = Exported {
        out: path.display().to_string(),
        bytes: file.len() + 1,
    };
    print(&exported, json, |e| {
        format!("wrote {} ({} bytes)", e.out, e.bytes)
    })
}

async fn import(
    engine: &Engine,
    file: PathBuf,
    replace: bool,
    json: bool,
) -> Result<ExitCode, CliError> {
    let text = std::fs::read_to_string(&file).map_err(|e| io_error("read", &file, &e))?;
    let mode = if replace {
        ImportMode::Replace
    } else {
        ImportMode::Merge
    };
    let report = engine.import_roles(&text, mode).await?;
    print(&report, json, |r| {
        format!(
            "imported {} blocks ({} replaced) and {} presets ({} replaced); removed {} blocks \
             and {} presets",
            r.blocks_imported,
            r.blocks_replaced,
            r.presets_imported,
            r.presets_replaced,
            r.blocks_removed,
            r.presets_removed
        )
    })
}

fn io_error(verb: &str, path: &std::path::Path, error: &std::io::Error) -> CliError {
    CliError {
        code: ErrorCode::Io,
        message: format!("cannot {verb} {}: {error}", path.display()),
    }
}
