//! The built-in model worker's pure half: the answer schema a model fills in each turn, the
//! prompts it is sent, path checks and search/replace on in-memory text.
//!
//! The engine does the IO (listing and reading the worktree, writing files, the model calls);
//! everything that can be decided without touching a disk lives here so it can be tested on
//! strings. The model never gets a shell: it can only ask to read files and propose edits.

use serde_json::{json, Value};

use super::TokenPrice;
use crate::catalog::card::Pricing;

/// The `json_schema.name` (or Anthropic tool name) of a turn's answer.
pub const ANSWER_SCHEMA_NAME: &str = "worker_turn";

/// The system prompt: what the worker may do and how to answer.
pub const INSTRUCTIONS: &str = "You are a coding worker editing a git repository checkout to \
complete the user's task. You cannot run commands; you can only read files and edit them. \
Each turn, reply with exactly one JSON object matching the schema:\n\
- \"read\": paths whose full content you want to see next turn.\n\
- \"edits\": changes to apply now, in order. Each is one of: {\"path\", \"content\"} to write \
the whole file (created if missing); {\"path\", \"search\", \"replace\"} to replace text that \
must occur exactly once in the file (copy it exactly, whitespace included, with enough \
surrounding lines to be unique); {\"path\", \"delete\": true} to delete the file.\n\
- \"done\": true once the task is complete; no further turn follows.\n\
- \"summary\": a short note of what you did or plan next.\n\
Paths are relative to the repository root, use '/', and never leave the repository or enter \
.git. The next turn tells you how each edit went and shows the files you asked for. Read a \
file before editing it unless you create it; prefer search/replace for large files.";

/// The JSON Schema of one turn's answer. Every key is required so strict-mode providers
/// accept it; an edit is one of three shapes.
pub fn answer_schema() -> Value {
    let path = json!({"type": "string", "minLength": 1});
    json!({
        "title": "SwitchyardWorkerTurn",
        "type": "object",
        "additionalProperties": false,
        "required": ["read", "edits", "done", "summary"],
        "properties": {
            "read": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "edits": {
                "type": "array",
                "items": {
                    "anyOf": [
                        {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["path", "content"],
                            "properties": {"path": path, "content": {"type": "string"}}
                        },
                        {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["path", "search", "replace"],
                            "properties": {
                                "path": path,
                                "search": {"type": "string", "minLength": 1},
                                "replace": {"type": "string"}
                            }
                        },
                        {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["path", "delete"],
                            "properties": {"path": path, "delete": {"const": true}}
                        }
                    ]
                }
            },
            "done": {"type": "boolean"},
            "summary": {"type": "string"}
        }
    })
}

/// One change the model asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Write the whole file.
    Write { path: String, content: String },
    /// Replace the one occurrence of `search`.
    Replace {
        path: String,
        search: String,
        replace: String,
    },
    /// Delete the file.
    Delete { path: String },
}

impl Edit {
    /// The path as the model wrote it.
    pub fn path(&self) -> &str {
        match self {
            Edit::Write { path, .. } | Edit::Replace { path, .. } | Edit::Delete { path } => path,
        }
    }

    /// A word for the kind of edit, for reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Edit::Write { .. } => "write",
            Edit::Replace { .. } => "replace",
            Edit::Delete { .. } => "delete",
        }
    }
}

/// One turn's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub read: Vec<String>,
    pub edits: Vec<Edit>,
    pub done: bool,
    pub summary: String,
}

/// Reads an answer already validated against [`answer_schema`]. Still defensive: a value
/// that does not have the shape is described, never trusted.
pub fn parse_answer(value: &Value) -> Result<Answer, String> {
    let field = |name: &str| {
        value
            .get(name)
            .ok_or_else(|| format!("the answer has no {name:?}"))
    };
    let read = field("read")?
        .as_array()
        .ok_or("\"read\" is not a list")?
        .iter()
        .map(|p| {
            p.as_str()
                .map(str::to_owned)
                .ok_or("a read path is not text")
        })
        .collect::<Result<Vec<_>, _>>()?;
    let edits = field("edits")?
        .as_array()
        .ok_or("\"edits\" is not a list")?
        .iter()
        .enumerate()
        .map(|(i, edit)| parse_edit(edit).map_err(|e| format!("edit {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let done = field("done")?
        .as_bool()
        .ok_or("\"done\" is not a boolean")?;
    let summary = field("summary")?
        .as_str()
        .ok_or("\"summary\" is not text")?
        .to_owned();
    Ok(Answer {
        read,
        edits,
        done,
        summary,
    })
}

fn parse_edit(edit: &Value) -> Result<Edit, String> {
    let text = |name: &str| edit.get(name).and_then(Value::as_str).map(str::to_owned);
    let path = text("path").ok_or("no path")?;
    if edit.get("delete").and_then(Value::as_bool) == Some(true) {
        return Ok(Edit::Delete { path });
    }
    if let Some(content) = text("content") {
        return Ok(Edit::Write { path, content });
    }
    match (text("search"), text("replace")) {
        (Some(search), Some(replace)) => Ok(Edit::Replace {
            path,
            search,
            replace,
        }),
        _ => Err("neither content, search/replace nor delete".into()),
    }
}

/// Why a path the model named is refused before anything touches the disk.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathRefusal {
    #[error("the path is empty")]
    Empty,
    #[error("absolute paths are refused; use a path relative to the repository root")]
    Absolute,
    #[error("\"..\" is refused; paths stay inside the repository")]
    ParentDir,
    #[error(".git is off limits")]
    GitDir,
    #[error("the path contains {0}, which is refused")]
    BadCharacter(&'static str),
}

/// The path in canonical relative form (`a/b.rs`, no `.` parts, no empty parts), or why it
/// is refused: absolute, `..`, `.git`, NUL or backslashes. Symlinks are the engine's check
/// (they need the disk).
pub fn checked_path(path: &str) -> Result<String, PathRefusal> {
    if path.contains('\0') {
        return Err(PathRefusal::BadCharacter("a NUL byte"));
    }
    if path.starts_with('/') || has_drive_prefix(path) {
        return Err(PathRefusal::Absolute);
    }
    // A backslash is a separator on Windows and part of a name elsewhere: refuse the ambiguity.
    if path.contains('\\') {
        return Err(PathRefusal::BadCharacter("a backslash"));
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(PathRefusal::ParentDir),
            // Case-insensitive file systems (macOS, Windows) treat `.GIT` as `.git`.
            p if p.eq_ignore_ascii_case(".git") => return Err(PathRefusal::GitDir),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(PathRefusal::Empty);
    }
    Ok(parts.join("/"))
}

fn has_drive_prefix(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// Why a search/replace edit did not apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplaceError {
    #[error("the search text is empty")]
    EmptySearch,
    #[error("the search text was not found in the file (copy it exactly, whitespace included)")]
    NotFound,
    #[error("the search text occurs {0} times; include more surrounding lines so it occurs once")]
    Ambiguous(usize),
}

/// `text` with the one occurrence of `search` replaced. Overlapping occurrences count: a
/// search for `aa` in `aaa` is ambiguous. A file with CRLF line ends also matches a search
/// written with LF (the replacement then gets CRLF too).
pub fn replace_once(text: &str, search: &str, replace: &str) -> Result<String, ReplaceError> {
    if search.is_empty() {
        return Err(ReplaceError::EmptySearch);
    }
    match replace_exact(text, search, replace) {
        Err(ReplaceError::NotFound) if text.contains("\r\n") && !search.contains('\r') => {
            replace_exact(
                text,
                &search.replace('\n', "\r\n"),
                &replace.replace("\r\n", "\n").replace('\n', "\r\n"),
            )
        }
        other => other,
    }
}

fn replace_exact(text: &str, search: &str, replace: &str) -> Result<String, ReplaceError> {
    let positions = occurrences(text, search);
    match positions.as_slice() {
        [] => Err(ReplaceError::NotFound),
        [at] => {
            let mut out = String::with_capacity(text.len() - search.len() + replace.len());
            out.push_str(&text[..*at]);
            out.push_str(replace);
            out.push_str(&text[at + search.len()..]);
            Ok(out)
        }
        many => Err(ReplaceError::Ambiguous(many.len())),
    }
}

/// Byte offsets where `needle` starts, overlaps included.
fn occurrences(text: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(needle) {
        let start = from + at;
        found.push(start);
        // Step one character, not one byte, to stay on a char boundary.
        let step = text[start..].chars().next().map_or(1, char::len_utf8);
        from = start + step;
        if from > text.len() {
            break;
        }
    }
    found
}

/// How much of the repository goes into the prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextLimits {
    /// Paths listed in the file tree.
    pub tree_entries: usize,
    /// Bytes of the file tree listing.
    pub tree_bytes: usize,
    /// Bytes shown of one file (the rest is cut, and the model is told).
    pub file_bytes: usize,
    /// Bytes of file content sent in one turn.
    pub turn_bytes: usize,
    /// Files read in one turn; further requests are named as skipped.
    pub reads_per_turn: usize,
    /// Bytes of earlier turns replayed in full; older turns are replayed in brief (file
    /// contents left out), so a long run's prompt stays bounded.
    pub history_bytes: usize,
}

impl Default for ContextLimits {
    fn default() -> Self {
        Self {
            tree_entries: 2_000,
            tree_bytes: 64 * 1024,
            file_bytes: 64 * 1024,
            turn_bytes: 192 * 1024,
            reads_per_turn: 16,
            history_bytes: 256 * 1024,
        }
    }
}

/// The file tree listing: sorted paths, cut at the limits, with the number left out.
/// `omitted` counts paths the caller already did not collect.
pub fn render_tree(paths: &[String], omitted: usize, limits: &ContextLimits) -> String {
    let mut sorted: Vec<&String> = paths.iter().collect();
    sorted.sort();
    let mut out = String::new();
    let mut listed = 0;
    for path in &sorted {
        if listed >= limits.tree_entries || out.len() + path.len() + 1 > limits.tree_bytes {
            break;
        }
        out.push_str(path);
        out.push('\n');
        listed += 1;
    }
    let left_out = sorted.len() - listed + omitted;
    if left_out > 0 {
        out.push_str(&format!(
            "… and {left_out} more paths not listed (ask to read a path to see it)\n"
        ));
    }
    if sorted.is_empty() && omitted == 0 {
        out.push_str("(the repository has no files yet)\n");
    }
    out
}

/// The first user message: the task and the file tree.
pub fn first_prompt(task: &str, tree: &str, max_turns: u32) -> String {
    format!(
        "Task:\n{task}\n\nFiles in the repository (paths relative to its root):\n{tree}\n\
         You have at most {max_turns} turns. Ask to read the files you need, then edit."
    )
}

/// A file the model asked to read, as it goes into the next prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileView {
    /// The path as the model wrote it.
    pub path: String,
    pub body: FileBody,
}

/// What was found at a read path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileBody {
    /// Text, possibly cut: `cut_from` is the file's size when it was cut.
    Text {
        content: String,
        cut_from: Option<u64>,
    },
    /// Not shown, and why (refused path, missing, binary, directory, …).
    Unavailable(String),
}

/// How one edit went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditReport {
    pub path: String,
    pub kind: &'static str,
    /// `Err` holds the reason, sent back to the model.
    pub result: Result<(), String>,
}

/// The next user message: how each edit went, the files asked for, reads skipped for the
/// limits, and how many turns remain.
pub fn feedback_prompt(
    edits: &[EditReport],
    files: &[FileView],
    skipped: &[String],
    turns_left: u32,
) -> String {
    render_feedback(edits, files, skipped, Some(turns_left))
}

/// The same message as replayed once it is old: file contents replaced by a note (the model
/// can ask again; the file may have changed since anyway), no turn count.
pub fn feedback_brief(edits: &[EditReport], files: &[FileView], skipped: &[String]) -> String {
    render_feedback(edits, files, skipped, None)
}

fn render_feedback(
    edits: &[EditReport],
    files: &[FileView],
    skipped: &[String],
    turns_left: Option<u32>,
) -> String {
    let mut out = String::new();
    if !edits.is_empty() {
        out.push_str("Edits:\n");
        for edit in edits {
            match &edit.result {
                Ok(()) => out.push_str(&format!("- {} {}: applied\n", edit.kind, edit.path)),
                Err(why) => out.push_str(&format!(
                    "- {} {}: NOT applied: {why}\n",
                    edit.kind, edit.path
                )),
            }
        }
        out.push('\n');
    }
    for file in files {
        match (&file.body, turns_left) {
            (FileBody::Text { content, .. }, None) => out.push_str(&format!(
                "{}: shown then ({} bytes), left out now; ask to read it again if needed\n\n",
                file.path,
                content.len()
            )),
            (FileBody::Text { content, cut_from }, Some(_)) => {
                out.push_str(&format!("===== BEGIN FILE {} =====\n", file.path));
                out.push_str(content);
                if !content.is_empty() && !content.ends_with('\n') {
                    out.push('\n');
                }
                if let Some(total) = cut_from {
                    out.push_str(&format!(
                        "[cut: showing the first {} of {total} bytes; edit it with search/replace]\n",
                        content.len()
                    ));
                }
                out.push_str(&format!("===== END FILE {} =====\n\n", file.path));
            }
            (FileBody::Unavailable(why), _) => {
                out.push_str(&format!("{}: not shown: {why}\n\n", file.path));
            }
        }
    }
    if !skipped.is_empty() {
        out.push_str(&format!(
            "Not read this turn (limit reached; ask again): {}\n\n",
            skipped.join(", ")
        ));
    }
    if edits.is_empty() && files.is_empty() && skipped.is_empty() {
        out.push_str(
            "You asked for nothing and changed nothing. Read or edit files, or set \"done\" \
             to true if the task is complete.\n\n",
        );
    }
    match turns_left {
        Some(left) => out.push_str(&format!(
            "{left} turn(s) left. Continue, or set \"done\" to true when the task is complete."
        )),
        None => {
            let trimmed = out.trim_end().len();
            out.truncate(trimmed);
        }
    }
    out
}

/// Search text longer than this is left out of a replayed answer.
const BRIEF_SEARCH_BYTES: usize = 2048;

/// A turn's answer as replayed once it is old: whole-file contents (and long search/replace
/// texts) replaced by their size, the rest as it was.
pub fn answer_brief(answer: &Value) -> String {
    let mut brief = answer.clone();
    if let Some(edits) = brief.get_mut("edits").and_then(Value::as_array_mut) {
        for edit in edits {
            let Some(edit) = edit.as_object_mut() else {
                continue;
            };
            for field in ["content", "search", "replace"] {
                let long = match edit.get(field).and_then(Value::as_str) {
                    Some(text) if field == "content" || text.len() > BRIEF_SEARCH_BYTES => {
                        Some(text.len())
                    }
                    _ => None,
                };
                if let Some(len) = long {
                    edit.insert(
                        field.into(),
                        Value::String(format!("[{len} bytes left out]")),
                    );
                }
            }
        }
    }
    brief.to_string()
}

/// Who says a message of the replayed conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
}

/// One finished turn, in full and in brief.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRecord {
    pub answer: String,
    pub answer_brief: String,
    pub feedback: String,
    pub feedback_brief: String,
}

/// The conversation to send: the first prompt, then each turn's answer and feedback. The
/// newest turns go in full while they fit in `budget` bytes (the newest always does: it is
/// what the model must act on); every older turn goes in brief.
pub fn history(first: &str, turns: &[TurnRecord], budget: usize) -> Vec<(Speaker, String)> {
    let mut full_from = turns.len();
    let mut used = 0usize;
    for (index, turn) in turns.iter().enumerate().rev() {
        let size = turn.answer.len() + turn.feedback.len();
        if index + 1 != turns.len() && used + size > budget {
            break;
        }
        used += size;
        full_from = index;
    }
    let mut messages = vec![(Speaker::User, first.to_owned())];
    for (index, turn) in turns.iter().enumerate() {
        let (answer, feedback) = if index >= full_from {
            (&turn.answer, &turn.feedback)
        } else {
            (&turn.answer_brief, &turn.feedback_brief)
        };
        messages.push((Speaker::Assistant, answer.clone()));
        messages.push((Speaker::User, feedback.clone()));
    }
    messages
}

/// Folders whose contents are build output or installed packages nearly always: listed as
/// one line, not walked, so they do not crowd the tree (the model can still read inside).
pub const UNLISTED_DIRS: [&str; 10] = [
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".next",
    ".gradle",
];

/// Whether a folder of this name is listed without its contents.
pub fn is_unlisted_dir(name: &str) -> bool {
    UNLISTED_DIRS.contains(&name)
}

/// Catalog prices as the worker usage's price; `None` when either is unknown.
pub fn token_price(pricing: &Pricing) -> Option<TokenPrice> {
    Some(TokenPrice {
        input_per_mtok: pricing.prompt_per_m?,
        output_per_mtok: pricing.completion_per_m?,
        cached_input_per_mtok: None,
    })
}

/// The longest prefix of `text` of at most `max` bytes that ends on a char boundary.
pub fn cut_at_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_or_refused_with_the_reason() {
        assert_eq!(checked_path("src/lib.rs"), Ok("src/lib.rs".into()));
        assert_eq!(checked_path("./src//./lib.rs"), Ok("src/lib.rs".into()));
        assert_eq!(checked_path("dir/"), Ok("dir".into()));
        assert_eq!(checked_path("/etc/passwd"), Err(PathRefusal::Absolute));
        assert_eq!(checked_path("C:/x"), Err(PathRefusal::Absolute));
        assert_eq!(checked_path("../x"), Err(PathRefusal::ParentDir));
        assert_eq!(checked_path("a/../../x"), Err(PathRefusal::ParentDir));
        assert_eq!(checked_path("a/.."), Err(PathRefusal::ParentDir));
        assert_eq!(checked_path(".git/config"), Err(PathRefusal::GitDir));
        assert_eq!(checked_path("sub/.GIT/hooks/x"), Err(PathRefusal::GitDir));
        assert_eq!(checked_path(".gitignore"), Ok(".gitignore".into()));
        assert_eq!(checked_path(""), Err(PathRefusal::Empty));
        assert_eq!(checked_path("./"), Err(PathRefusal::Empty));
        assert!(matches!(
            checked_path("a\\..\\b"),
            Err(PathRefusal::BadCharacter(_))
        ));
        assert!(matches!(
            checked_path("a\0b"),
            Err(PathRefusal::BadCharacter(_))
        ));
    }

    #[test]
    fn replace_needs_exactly_one_occurrence() {
        assert_eq!(
            replace_once("fn a() {}\nfn b() {}\n", "fn b() {}", "fn b() { 1 }"),
            Ok("fn a() {}\nfn b() { 1 }\n".into())
        );
        assert_eq!(
            replace_once("x = 1\n", "y = 1", "y = 2"),
            Err(ReplaceError::NotFound)
        );
        assert_eq!(
            replace_once("x\nx\nx\n", "x\n", "y\n"),
            Err(ReplaceError::Ambiguous(3))
        );
        // Overlapping occurrences make it ambiguous too.
        assert_eq!(
            replace_once("aaa", "aa", "b"),
            Err(ReplaceError::Ambiguous(2))
        );
        assert_eq!(replace_once("abc", "", "x"), Err(ReplaceError::EmptySearch));
        // Multi-byte text: offsets stay on char boundaries.
        assert_eq!(replace_once("é→é→ü", "→ü", "!"), Ok("é→é!".into()));
        assert_eq!(
            replace_once("ééé", "éé", "x"),
            Err(ReplaceError::Ambiguous(2))
        );
    }

    #[test]
    fn replace_matches_lf_search_in_a_crlf_file() {
        assert_eq!(
            replace_once("a\r\nb\r\nc\r\n", "b\nc", "B\nC"),
            Ok("a\r\nB\r\nC\r\n".into())
        );
        assert_eq!(
            replace_once("a\r\nb\r\n", "a\nx", "y"),
            Err(ReplaceError::NotFound)
        );
    }

    #[test]
    fn answers_parse_into_edits_of_each_shape() {
        let value = json!({
            "read": ["src/a.rs"],
            "edits": [
                {"path": "new.txt", "content": "hi\n"},
                {"path": "src/a.rs", "search": "1", "replace": "2"},
                {"path": "old.txt", "delete": true}
            ],
            "done": false,
            "summary": "working"
        });
        crate_validate(&value);
        let answer = parse_answer(&value).expect("answer");
        assert_eq!(answer.read, ["src/a.rs"]);
        assert_eq!(
            answer.edits,
            [
                Edit::Write {
                    path: "new.txt".into(),
                    content: "hi\n".into()
                },
                Edit::Replace {
                    path: "src/a.rs".into(),
                    search: "1".into(),
                    replace: "2".into()
                },
                Edit::Delete {
                    path: "old.txt".into()
                },
            ]
        );
        assert!(!answer.done);
        assert_eq!(answer.summary, "working");
        assert_eq!(
            parse_answer(
                &json!({"read": [], "edits": [{"path": "x"}], "done": true, "summary": ""})
            ),
            Err("edit 1: neither content, search/replace nor delete".into())
        );
        assert!(parse_answer(&json!({"edits": [], "done": true, "summary": ""})).is_err());
    }

    /// The schema is well-formed JSON Schema of the shape providers accept: an object whose
    /// every property is required.
    fn crate_validate(value: &Value) {
        let schema = answer_schema();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .expect("required")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let properties = schema["properties"].as_object().expect("properties");
        assert_eq!(required.len(), properties.len());
        for key in required {
            assert!(value.get(key).is_some(), "{key} present");
        }
    }

    #[test]
    fn the_tree_is_sorted_and_cut_at_the_limits() {
        let paths: Vec<String> = ["b.rs", "a.rs", "src/c.rs"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let all = render_tree(&paths, 0, &ContextLimits::default());
        assert_eq!(all, "a.rs\nb.rs\nsrc/c.rs\n");
        let limits = ContextLimits {
            tree_entries: 2,
            ..ContextLimits::default()
        };
        let cut = render_tree(&paths, 5, &limits);
        assert!(cut.starts_with("a.rs\nb.rs\n"), "{cut}");
        assert!(cut.contains("and 6 more paths"), "{cut}");
        let bytes = ContextLimits {
            tree_bytes: 6,
            ..ContextLimits::default()
        };
        assert!(render_tree(&paths, 0, &bytes).starts_with("a.rs\n… and 2 more"));
        assert!(render_tree(&[], 0, &limits).contains("no files yet"));
    }

    #[test]
    fn prompts_carry_the_task_results_and_file_contents() {
        let first = first_prompt("Fix the bug", "a.rs\n", 4);
        assert!(first.contains("Task:\nFix the bug"));
        assert!(first.contains("a.rs\n"));
        assert!(first.contains("at most 4 turns"));

        let feedback = feedback_prompt(
            &[
                EditReport {
                    path: "a.rs".into(),
                    kind: "replace",
                    result: Err("the search text was not found".into()),
                },
                EditReport {
                    path: "b.rs".into(),
                    kind: "write",
                    result: Ok(()),
                },
            ],
            &[
                FileView {
                    path: "a.rs".into(),
                    body: FileBody::Text {
                        content: "fn main() {}".into(),
                        cut_from: Some(100),
                    },
                },
                FileView {
                    path: "../x".into(),
                    body: FileBody::Unavailable("\"..\" is refused".into()),
                },
            ],
            &["c.rs".into()],
            2,
        );
        assert!(feedback.contains("- replace a.rs: NOT applied: the search text was not found"));
        assert!(feedback.contains("- write b.rs: applied"));
        assert!(feedback.contains(
            "===== BEGIN FILE a.rs =====\nfn main() {}\n[cut: showing the first 12 of 100 bytes"
        ));
        assert!(feedback.contains("../x: not shown: \"..\" is refused"));
        assert!(feedback.contains("Not read this turn (limit reached; ask again): c.rs"));
        assert!(feedback.ends_with(
            "2 turn(s) left. Continue, or set \"done\" to true when the task is complete."
        ));
        assert!(!feedback.contains("You asked for nothing"));
        assert!(feedback_prompt(&[], &[], &[], 1).contains("You asked for nothing"));
    }

    #[test]
    fn old_turns_are_replayed_in_brief_within_the_budget() {
        let read = [FileView {
            path: "a.rs".into(),
            body: FileBody::Text {
                content: "SECRET-BODY".into(),
                cut_from: None,
            },
        }];
        let brief = feedback_brief(&[], &read, &[]);
        assert_eq!(
            brief,
            "a.rs: shown then (11 bytes), left out now; ask to read it again if needed"
        );
        let answer = json!({
            "read": [], "done": false, "summary": "s",
            "edits": [
                {"path": "big.rs", "content": "x".repeat(5000)},
                {"path": "a.rs", "search": "short", "replace": "y".repeat(3000)}
            ]
        });
        let short = answer_brief(&answer);
        assert!(short.contains("[5000 bytes left out]"), "{short}");
        assert!(short.contains("\"search\":\"short\""), "{short}");
        assert!(short.contains("[3000 bytes left out]"), "{short}");
        assert!(!short.contains("xxxx"));

        let record = |n: usize| TurnRecord {
            answer: format!("answer{n}"),
            answer_brief: format!("a{n}"),
            feedback: format!("feedback{n}-{}", "f".repeat(100)),
            feedback_brief: format!("b{n}"),
        };
        let turns = [record(1), record(2), record(3)];
        let texts = |budget| -> Vec<String> {
            history("first", &turns, budget)
                .into_iter()
                .map(|(_, text)| text.chars().take(9).collect())
                .collect()
        };
        // Room for everything: all in full.
        assert_eq!(
            texts(10_000),
            [
                "first",
                "answer1",
                "feedback1",
                "answer2",
                "feedback2",
                "answer3",
                "feedback3"
            ]
        );
        // Room for two turns: the oldest in brief.
        assert_eq!(
            texts(250),
            [
                "first",
                "a1",
                "b1",
                "answer2",
                "feedback2",
                "answer3",
                "feedback3"
            ]
        );
        // No room at all: still the newest in full.
        assert_eq!(
            texts(0),
            ["first", "a1", "b1", "a2", "b2", "answer3", "feedback3"]
        );
        let speakers: Vec<Speaker> = history("first", &turns[..1], 0)
            .into_iter()
            .map(|(who, _)| who)
            .collect();
        assert_eq!(speakers, [Speaker::User, Speaker::Assistant, Speaker::User]);
        assert!(is_unlisted_dir("node_modules") && !is_unlisted_dir("src"));
    }

    #[test]
    fn prices_and_cuts() {
        let price = token_price(&Pricing {
            prompt_per_m: Some(1.0),
            completion_per_m: Some(2.0),
        })
        .expect("price");
        assert_eq!(price.input_per_mtok, 1.0);
        assert_eq!(price.output_per_mtok, 2.0);
        assert!(token_price(&Pricing {
            prompt_per_m: Some(1.0),
            completion_per_m: None,
        })
        .is_none());
        assert_eq!(cut_at_boundary("héllo", 2), "h");
        assert_eq!(cut_at_boundary("héllo", 3), "hé");
        assert_eq!(cut_at_boundary("hi", 10), "hi");
    }
}
