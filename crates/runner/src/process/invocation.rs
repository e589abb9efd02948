//! What every child starts from, owned ([`super::ProcessSpec`]) or detached
//! ([`super::DetachedSpec`]): program, arguments, working directory, environment and stdin
//! payload. Each spec adds what is its own (ownership and limits, or a log file) and decides
//! which explicit variables it refuses.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

use super::ProcessError;

/// The common part of a child's description.
pub(crate) struct Invocation {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
    /// The variables the child starts with before the explicit ones (the allowlisted parent
    /// environment, and for a detached child the forwarded variables).
    pub base_env: BTreeMap<OsString, OsString>,
    /// Variables passed by name; they may carry keys, so only their names are ever shown.
    pub explicit: Vec<(String, OsString)>,
    pub stdin: Option<Vec<u8>>,
}

impl Invocation {
    pub fn new(program: OsString, base_env: BTreeMap<OsString, OsString>) -> Self {
        Self {
            program,
            args: Vec::new(),
            cwd: None,
            base_env,
            explicit: Vec::new(),
            stdin: None,
        }
    }

    /// The program as a string, for errors.
    pub fn program_name(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    /// The base environment with the explicit variables over it; the first explicit name
    /// `refused` rejects fails with [`ProcessError::ForbiddenEnv`].
    pub fn environment(
        &self,
        refused: impl Fn(&str) -> bool,
    ) -> Result<BTreeMap<OsString, OsString>, ProcessError> {
        let mut vars = self.base_env.clone();
        for (name, value) in &self.explicit {
            if refused(name) {
                return Err(ProcessError::ForbiddenEnv { name: name.clone() });
            }
            vars.insert(name.into(), value.clone());
        }
        Ok(vars)
    }

    /// [`ProcessError::NoWorkingDir`] when a working directory is set and is not a directory.
    pub fn check_cwd(&self) -> Result<(), ProcessError> {
        match &self.cwd {
            Some(cwd) if !cwd.is_dir() => Err(ProcessError::NoWorkingDir { path: cwd.clone() }),
            _ => Ok(()),
        }
    }

    /// Adds the fields that are safe to show (no values of variables, no stdin bytes) to `f`.
    pub fn debug_fields(&self, f: &mut std::fmt::DebugStruct<'_, '_>) {
        let explicit: Vec<&str> = self.explicit.iter().map(|(n, _)| n.as_str()).collect();
        f.field("program", &self.program)
            .field("args", &self.args)
            .field("cwd", &self.cwd)
            .field("env", &self.base_env.keys().collect::<Vec<_>>())
            .field("explicit", &explicit)
            .field("stdin_bytes", &self.stdin.as_ref().map(Vec::len));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DetachedSpec, ProcessSpec};

    #[test]
    fn specs_show_variable_names_but_never_their_values_or_stdin() {
        let owned = ProcessSpec::new("worker")
            .env("OPENAI_API_KEY", "sk-hidden-value-1")
            .stdin("hidden-token-2");
        let detached = DetachedSpec::new("switchyard")
            .env("OPENAI_API_KEY", "sk-hidden-value-1")
            .stdin("hidden-token-2");
        for text in [format!("{owned:?}"), format!("{detached:?}")] {
            assert!(text.contains("OPENAI_API_KEY"), "{text}");
            assert!(text.contains("stdin_bytes: Some(14)"), "{text}");
            assert!(!text.contains("sk-hidden-value-1"), "{text}");
            assert!(!text.contains("hidden-token-2"), "{text}");
        }
    }
}
