//! Which worker would run a routed model on a coding task: the agent CLIs that can call it,
//! in the order they are offered, and the suggestion the engine makes once it knows which of
//! them are ready here.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::worker::{WorkerCli, WorkerSpec};

/// The worker a pick or recommendation suggests for a coding task (`--worker` on `run`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct WorkerSuggestion {
    /// The worker spec: `claude:claude-haiku-4-5`, `opencode:deepseek/deepseek-chat`, or
    /// `model:<catalog id>` for the built-in model worker.
    pub worker: String,
    /// Why this one, in words.
    pub reason: String,
}

/// The agent CLIs that can run catalog model `model_id`, in the order a suggestion prefers
/// them: the model vendor's own CLI (Claude Code for Anthropic, Codex for OpenAI, Gemini CLI
/// for Google), then OpenCode and Aider, which call the provider the model names.
pub fn agent_workers(model_id: &str) -> Vec<WorkerSpec> {
    let vendor_clis = WorkerCli::ALL
        .into_iter()
        .filter(|cli| cli.builtin_provider().is_some());
    vendor_clis
        .chain([WorkerCli::OpenCode, WorkerCli::Aider])
        .filter_map(|cli| {
            Some(WorkerSpec::Cli {
                cli,
                model: Some(cli.model_name(model_id)?),
            })
        })
        .collect()
}

/// The built-in model worker for `model_id`, the suggestion when no agent CLI is ready.
pub fn model_worker(model_id: &str) -> WorkerSuggestion {
    WorkerSuggestion {
        worker: WorkerSpec::Model {
            id: model_id.to_owned(),
        }
        .to_string(),
        reason: "no agent CLI is ready for this model here: the built-in model worker runs it"
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(model_id: &str) -> Vec<String> {
        agent_workers(model_id)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn the_vendors_own_cli_comes_first_then_the_routed_provider_clis() {
        assert_eq!(
            specs("anthropic/claude-haiku-4.5"),
            [
                "claude:claude-haiku-4-5",
                "opencode:anthropic/claude-haiku-4.5",
                "aider:anthropic/claude-haiku-4.5"
            ]
        );
        assert_eq!(
            specs("openai/gpt-5-mini")[0],
            "codex:gpt-5-mini",
            "Codex for OpenAI"
        );
        assert_eq!(
            specs("google/gemini-2.5-flash")[0],
            "gemini:gemini-2.5-flash"
        );
        // No vendor CLI for DeepSeek: OpenCode and Aider only.
        assert_eq!(
            specs("deepseek/deepseek-chat"),
            [
                "opencode:deepseek/deepseek-chat",
                "aider:deepseek/deepseek-chat"
            ]
        );
        assert!(specs("not-a-catalog-id").is_empty());
        assert_eq!(
            model_worker("deepseek/deepseek-chat").worker,
            "model:deepseek/deepseek-chat"
        );
    }
}
