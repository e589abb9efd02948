//! The generic command worker `exec:<command>`: `sh -c <command>` in the worktree, the task on
//! stdin and in `SWITCHYARD_TASK`. Its output has no format: every line is kept raw and the
//! exit code is its verdict.

use super::json::raw;
use super::{
    finish_events, Invocation, InvocationError, TranscriptParser, WorkerEvent, WorkerTask,
    MAX_ARG_BYTES,
};

/// The variable that carries the task.
pub const TASK_ENV: &str = "SWITCHYARD_TASK";

/// `sh -c <command>`, task on stdin and in `SWITCHYARD_TASK`. No provider key.
///
/// # Errors
/// [`InvocationError::PromptTooLong`] when the task does not fit in one environment string.
pub fn invocation(command: &str, task: &WorkerTask) -> Result<Invocation, InvocationError> {
    let env_len = TASK_ENV.len() + 1 + task.prompt.len();
    if env_len > MAX_ARG_BYTES {
        return Err(InvocationError::PromptTooLong {
            cli: "exec",
            len: task.prompt.len(),
            limit: MAX_ARG_BYTES - TASK_ENV.len() - 1,
        });
    }
    Ok(Invocation {
        program: "sh".into(),
        args: vec!["-c".into(), command.to_owned()],
        stdin: Some(task.prompt.clone()),
        env: vec![(TASK_ENV.to_owned(), task.prompt.clone())],
        key_env: Vec::new(),
        cwd: task.worktree.clone(),
        files: Vec::new(),
    })
}

/// Keeps every line raw; the exit code decides `Final`.
#[derive(Debug, Default)]
pub struct ExecParser;

impl TranscriptParser for ExecParser {
    fn parse_line(&mut self, line: &str) -> Vec<WorkerEvent> {
        raw(line)
    }

    fn finish(&mut self, exit_code: Option<i32>) -> Vec<WorkerEvent> {
        finish_events(None, false, exit_code, None)
    }
}
