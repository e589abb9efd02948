//! Resolving a symlink inside the tree after the change, lexically, following other symlinks
//! of that tree the way the kernel would (so `a -> d/up/..` with `d/up -> ..` is seen to leave).

use std::collections::{BTreeMap, VecDeque};

use crate::review::diff::{CapturedDiff, FileStatus};

/// Links followed before a chain counts as a loop (Linux's `MAXSYMLINKS`).
const MAX_HOPS: usize = 40;

/// Where a symlink leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// A repository-relative path inside the worktree (empty for the root).
    Inside(String),
    /// Outside the worktree, or into its `.git`; the reason is for people.
    Outside(String),
    /// The chain does not end within [`MAX_HOPS`] links.
    Loop,
}

/// The symlinks of the tree after the change: `known` (the whole tree, when the runner gave
/// it) updated with the diff's own additions and deletions.
pub(crate) fn table(
    diff: &CapturedDiff,
    known: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut table = known.clone();
    for file in &diff.files {
        if let Some(old) = &file.old_path {
            if file.status == FileStatus::Renamed {
                table.remove(old);
            }
        }
        match (&file.symlink_target, file.new_is_symlink()) {
            (Some(target), true) => {
                table.insert(file.path.clone(), target.clone());
            }
            _ => {
                table.remove(&file.path);
            }
        }
    }
    table
}

/// Resolves the link at `link` (repository-relative) pointing at `target`.
pub(crate) fn resolve(link: &str, target: &str, table: &BTreeMap<String, String>) -> Resolved {
    if target.starts_with('/') {
        return Resolved::Outside(format!("points to the absolute path {target}"));
    }
    let mut stack: Vec<&str> = link.split('/').filter(|c| !c.is_empty()).collect();
    stack.pop();
    let mut queue: VecDeque<&str> = target.split('/').collect();
    let mut hops = 0;
    while let Some(component) = queue.pop_front() {
        match component {
            "" | "." => {}
            ".." => {
                if stack.pop().is_none() {
                    return Resolved::Outside(format!("{target} climbs above the worktree"));
                }
            }
            name => {
                stack.push(name);
                if stack.len() == 1 && name == ".git" {
                    return Resolved::Outside(format!("{target} leads into .git"));
                }
                let joined = stack.join("/");
                if let Some(next) = table.get(&joined) {
                    hops += 1;
                    if hops > MAX_HOPS {
                        return Resolved::Loop;
                    }
                    if next.starts_with('/') {
                        return Resolved::Outside(format!(
                            "{target} passes through {joined}, which points to the absolute \
                             path {next}"
                        ));
                    }
                    stack.pop();
                    for part in next.split('/').rev() {
                        queue.push_front(part);
                    }
                }
            }
        }
    }
    Resolved::Inside(stack.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_of(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn relative_links_inside_resolve_to_their_path() {
        let t = table_of(&[]);
        assert_eq!(resolve("a/b/l", "../c", &t), Resolved::Inside("a/c".into()));
        assert_eq!(resolve("l", "./x/./y", &t), Resolved::Inside("x/y".into()));
    }

    #[test]
    fn climbing_out_or_absolute_targets_leave() {
        let t = table_of(&[]);
        assert!(matches!(
            resolve("x", "../../outside", &t),
            Resolved::Outside(_)
        ));
        assert!(matches!(
            resolve("x", "/etc/passwd", &t),
            Resolved::Outside(_)
        ));
        assert!(matches!(
            resolve("d/x", "../.git/config", &t),
            Resolved::Outside(_)
        ));
    }

    #[test]
    fn chains_through_other_links_are_followed() {
        let t = table_of(&[("d/up", "..")]);
        assert_eq!(resolve("a", "d/up", &t), Resolved::Inside(String::new()));
        assert!(matches!(resolve("a", "d/up/..", &t), Resolved::Outside(_)));
        let looped = table_of(&[("p", "q"), ("q", "p")]);
        assert_eq!(resolve("l", "p", &looped), Resolved::Loop);
    }
}
