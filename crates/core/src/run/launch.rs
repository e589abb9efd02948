//! Launch options as a front end takes them (the CLI's `run` flags, the MCP tool
//! `switchyard_run_create`), checked and turned into a [`RunRequest`] one way for both: which
//! options need a repository, which apply to which modes, which limit a node timeout sets,
//! and what an empty verification list means. Each front end words the errors in its own
//! vocabulary (`--worker`, `worker`).

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::routing::plan::Plan;
use crate::routing::BudgetTier;

use super::cascade::JudgeSpec;
use super::limits::RunLimitsOverride;
use super::view::RunRequest;
use super::RunMode;

/// What a run is launched with, before it is checked. Blank strings count as not given.
/// The desktop app's launch form sends these too, so the rules below hold for every front end.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase", default)]
pub struct RunOptions {
    pub task: String,
    /// `None`: single.
    pub mode: Option<RunMode>,
    pub budget: Option<BudgetTier>,
    pub max_usd: Option<f64>,
    pub max_parallel_nodes: Option<u32>,
    /// Seconds one node may take: a text node's model call, or, with a repository, a code
    /// node's worker.
    pub node_timeout_s: Option<u32>,
    pub run_timeout_s: Option<u32>,
    pub max_output_tokens: Option<u32>,
    pub cli_reservation_usd: Option<f64>,
    pub preset: Option<String>,
    pub repo: Option<String>,
    /// `None`: detected from the repository. `Some`: these commands, blank ones dropped, so
    /// a list of nothing but blanks runs no verification at all.
    pub verify: Option<Vec<String>>,
    pub worker: Option<String>,
    pub models: Vec<String>,
    pub ladder: Vec<String>,
    pub members: Option<u32>,
    pub judge: Option<JudgeSpec>,
    pub plan: Option<Plan>,
    pub pause_after_plan: bool,
    pub pause_before_integration: bool,
    /// Code runs: workers and verification may reach the network.
    pub allow_network: bool,
    /// Code runs: paths outside the worktree workers may write.
    pub allow_write: Vec<String>,
    /// Code runs: each attempt's model re-reads its change after verification.
    #[serde(default)]
    pub self_review: bool,
    /// Text runs: a JSON Schema (as text) the result must match.
    pub schema: Option<String>,
    /// Who launches it; a front end sets its own name, whatever the options say.
    pub launcher: String,
}

/// An option that is refused in some launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOption {
    Worker,
    Verify,
    Ladder,
    Judge,
    Members,
    Plan,
}

impl RunOption {
    /// The option's plain name (also the MCP input field's).
    pub fn name(self) -> &'static str {
        match self {
            RunOption::Worker => "worker",
            RunOption::Verify => "verify",
            RunOption::Ladder => "ladder",
            RunOption::Judge => "judge",
            RunOption::Members => "members",
            RunOption::Plan => "plan",
        }
    }
}

/// Why options cannot launch a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunOptionsError {
    #[error("the task is empty")]
    EmptyTask,
    /// A code-only option without a repository.
    #[error("{} applies to code: give the repository (repo) too", .0.name())]
    NeedsRepo(RunOption),
    /// An option for other modes.
    #[error("{} applies to mode {}", .option.name(), mode_names(.modes))]
    NotInMode {
        option: RunOption,
        modes: &'static [RunMode],
    },
}

/// `plan or swarm`.
pub fn mode_names(modes: &[RunMode]) -> String {
    let names: Vec<&str> = modes.iter().map(|m| m.as_str()).collect();
    names.join(" or ")
}

fn given(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

fn non_empty(values: Vec<String>) -> Option<Vec<String>> {
    let values: Vec<String> = values
        .into_iter()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect();
    (!values.is_empty()).then_some(values)
}

impl RunOptions {
    /// The request these options launch.
    ///
    /// # Errors
    /// [`RunOptionsError`] for an empty task, a worker or verification without a
    /// repository, or a ladder, judge, member count or plan outside its modes.
    pub fn request(self) -> Result<RunRequest, RunOptionsError> {
        let mode = self.mode.unwrap_or(RunMode::Single);
        if self.task.trim().is_empty() {
            return Err(RunOptionsError::EmptyTask);
        }
        let repo = given(self.repo);
        if repo.is_none() {
            if self.worker.is_some() {
                return Err(RunOptionsError::NeedsRepo(RunOption::Worker));
            }
            if self.verify.is_some() {
                return Err(RunOptionsError::NeedsRepo(RunOption::Verify));
            }
        }
        let only = |given: bool, option: RunOption, modes: &'static [RunMode]| {
            if given && !modes.contains(&mode) {
                return Err(RunOptionsError::NotInMode { option, modes });
            }
            Ok(())
        };
        only(
            !self.ladder.is_empty(),
            RunOption::Ladder,
            &[RunMode::Cascade],
        )?;
        only(self.judge.is_some(), RunOption::Judge, &[RunMode::Cascade])?;
        only(
            self.members.is_some(),
            RunOption::Members,
            &[RunMode::Collective],
        )?;
        only(
            self.plan.is_some(),
            RunOption::Plan,
            &[RunMode::Plan, RunMode::Swarm],
        )?;
        let code = repo.is_some();
        let limits = RunLimitsOverride {
            max_parallel_nodes: self.max_parallel_nodes,
            node_timeout_s: self.node_timeout_s.filter(|_| !code),
            code_node_timeout_s: self.node_timeout_s.filter(|_| code),
            run_timeout_s: self.run_timeout_s,
            max_usd: None,
            cli_reservation_usd: self.cli_reservation_usd,
            max_output_tokens: self.max_output_tokens,
        };
        let mut req = RunRequest::new(&self.task, mode);
        req.budget = self.budget;
        req.max_usd = self.max_usd;
        req.limits = (limits != RunLimitsOverride::default()).then_some(limits);
        req.preset = given(self.preset);
        req.verify = self.verify.map(|commands| {
            commands
                .into_iter()
                .filter(|c| !c.trim().is_empty())
                .collect()
        });
        req.repo = repo;
        req.worker = given(self.worker);
        req.models = non_empty(self.models);
        req.ladder = non_empty(self.ladder);
        req.members = self.members;
        req.plan = self.plan;
        req.judge = self.judge;
        req.pause_after_plan = self.pause_after_plan;
        req.pause_before_integration = self.pause_before_integration;
        req.allow_network = self.allow_network;
        req.allow_write = self.allow_write;
        req.self_review = self.self_review;
        req.schema = given(self.schema);
        req.launcher = self.launcher;
        Ok(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(task: &str) -> RunOptions {
        RunOptions {
            task: task.to_owned(),
            ..RunOptions::default()
        }
    }

    #[test]
    fn a_node_timeout_limits_text_calls_or_with_a_repository_code_workers() {
        let mut text = options("Explain");
        text.node_timeout_s = Some(30);
        let limits = text.request().expect("request").limits.expect("limits");
        assert_eq!(limits.node_timeout_s, Some(30));
        assert_eq!(limits.code_node_timeout_s, None);

        let mut code = options("Fix it");
        code.repo = Some("/r".into());
        code.node_timeout_s = Some(600);
        let limits = code.request().expect("request").limits.expect("limits");
        assert_eq!(limits.node_timeout_s, None);
        assert_eq!(limits.code_node_timeout_s, Some(600));

        assert_eq!(options("Explain").request().expect("request").limits, None);
    }

    #[test]
    fn verification_is_detected_unless_given_and_blank_commands_run_none() {
        let mut code = options("Fix it");
        code.repo = Some("/r".into());
        assert_eq!(code.clone().request().expect("request").verify, None);
        code.verify = Some(vec![" ".into()]);
        assert_eq!(
            code.clone().request().expect("request").verify,
            Some(vec![])
        );
        code.verify = Some(vec!["cargo test".into(), String::new()]);
        assert_eq!(
            code.request().expect("request").verify,
            Some(vec!["cargo test".to_owned()])
        );
    }

    #[test]
    fn code_options_need_a_repository_and_mode_options_their_modes() {
        assert_eq!(options("  ").request(), Err(RunOptionsError::EmptyTask));
        let mut worker = options("t");
        worker.worker = Some("claude".into());
        assert_eq!(
            worker.request(),
            Err(RunOptionsError::NeedsRepo(RunOption::Worker))
        );
        let mut verify = options("t");
        verify.verify = Some(vec![]);
        assert_eq!(
            verify.request(),
            Err(RunOptionsError::NeedsRepo(RunOption::Verify))
        );
        let mut ladder = options("t");
        ladder.ladder = vec!["a".into()];
        let error = ladder.clone().request().expect_err("single");
        assert_eq!(error.to_string(), "ladder applies to mode cascade");
        ladder.mode = Some(RunMode::Cascade);
        assert_eq!(
            ladder.request().expect("cascade").ladder,
            Some(vec!["a".to_owned()])
        );
        let mut members = options("t");
        members.members = Some(3);
        members.mode = Some(RunMode::Plan);
        assert!(matches!(
            members.request(),
            Err(RunOptionsError::NotInMode {
                option: RunOption::Members,
                ..
            })
        ));
    }

    #[test]
    fn blank_names_are_not_given_and_the_launcher_is_kept() {
        let mut o = options("Say hello");
        o.models = vec![" m ".into(), " ".into()];
        o.preset = Some(" ".into());
        o.worker = None;
        o.launcher = "claude-code".into();
        let req = o.request().expect("request");
        assert_eq!(req.mode, RunMode::Single);
        assert_eq!(req.models, Some(vec!["m".to_owned()]));
        assert_eq!(req.preset, None);
        assert_eq!(req.launcher, "claude-code");
    }

    #[test]
    fn network_writes_and_a_schema_pass_through_and_a_blank_schema_is_none() {
        let req = RunOptions {
            repo: Some("/r".into()),
            allow_network: true,
            allow_write: vec!["/tmp/cache".into()],
            ..options("fix it")
        }
        .request()
        .expect("request");
        assert!(req.allow_network);
        assert_eq!(req.allow_write, ["/tmp/cache"]);
        let text = |schema: &str| {
            RunOptions {
                schema: Some(schema.into()),
                ..options("say hi")
            }
            .request()
            .expect("request")
            .schema
        };
        assert_eq!(text("  "), None);
        assert_eq!(text("{}").as_deref(), Some("{}"));
    }
}
