//! Capturing a worktree's change against its pinned base: stage everything into the attempt's
//! private index (`git add -A`: edits, new files, deletions, modes, symlinks, binaries; ignored
//! files stay out), then list and print the index-vs-base diff with every output option pinned
//! (the canonical patch defined in `switchyard_core::review::diff`). Git attributes are read
//! from the base commit throughout, so the change being captured cannot restyle itself.

use std::collections::{BTreeMap, HashMap};

use switchyard_core::review::diff::{CanonicalPatch, CapturedDiff, MODE_GITLINK, MODE_SYMLINK};
use switchyard_core::review::gates::{
    manifests_needed, run_all, GateInputs, GatePolicy, GateResult, KnownKey, ManifestContents,
    ManifestNeed, SecretRules,
};
use switchyard_core::review::raw::{is_null_oid, parse_raw, RawEntry};

use super::cmd::GitCmd;
use super::{GitError, Worktree};

/// Config pinned for the canonical diff, on top of ignoring global and system config, so the
/// repository's own config cannot change the patch bytes either.
/// Caches a worker CLI writes at the root of the repository it works in, with no option to
/// put them elsewhere (Aider's repository-map tag cache): never part of a change. They stay in
/// the worktree and go with it.
const TOOL_CACHES: &[&str] = &[":(exclude,glob).aider.tags.cache.v*/**"];

const DIFF_CONFIG: &[&str] = &[
    "core.quotePath=on",
    "core.attributesFile=/dev/null",
    "core.bigFileThreshold=512m",
    "core.compression=1",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.suppressBlankEmpty=false",
    "diff.renames=true",
    "diff.external=",
    "diff.orderFile=",
    "diff.relative=false",
    "color.ui=never",
    "color.diff=never",
];

/// Arguments pinned for both the raw listing and the patch, after `diff` (and `--cached` when
/// the index is one side).
const DIFF_ARGS: &[&str] = &[
    "--full-index",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--find-renames=50%",
    "-l1000",
    "--no-relative",
    "-O/dev/null",
    "--submodule=short",
    "--ignore-submodules=none",
];

/// Arguments that shape the patch text (`--unified` implies `--patch`, so the raw listing
/// must not get them).
const PATCH_ARGS: &[&str] = &[
    "--patch",
    "--binary",
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "--unified=3",
    "--inter-hunk-context=0",
];

/// A captured change: the model for the UI and gates, and the canonical patch it was read from.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The per-file model with the hash.
    pub diff: CapturedDiff,
    /// The canonical patch (its SHA-256 is `diff.sha256`).
    pub patch: CanonicalPatch,
    /// The tree object of the staged index (`git write-tree`), so a later attempt's change
    /// can be diffed against exactly this one ([`Worktree::diff_trees`]).
    pub tree: String,
}

impl Worktree {
    fn in_index(&self) -> GitCmd<'_> {
        self.repo()
            .git()
            .cmd(self.path())
            .env("GIT_INDEX_FILE", self.index())
            // Attributes come from the pinned base, not the worktree: a worker's new
            // `.gitattributes` (`* -diff`, a filter driver) must not change how its own change
            // is staged or rendered, e.g. turn text into "binary" the secrets gate skips.
            .env("GIT_ATTR_SOURCE", self.base())
            // Without these, a worker that restores a file's size and mtime could hide an edit.
            .config("core.trustctime=true")
            .config("core.checkStat=default")
    }

    /// The pinned diff command; `cached`: the private index is the new side.
    fn diff_cmd(&self, cached: bool) -> GitCmd<'_> {
        let mut cmd = self.in_index().isolated();
        for setting in DIFF_CONFIG {
            cmd = cmd.config(setting);
        }
        let cmd = cmd.arg("diff");
        let cmd = if cached { cmd.arg("--cached") } else { cmd };
        cmd.args(DIFF_ARGS)
    }

    /// Stages the whole worktree into the private index (seeding it from the base if it is
    /// gone).
    pub(crate) async fn stage(&self) -> Result<(), GitError> {
        if !self.index().exists() {
            self.in_index()
                .args(["read-tree", self.base()])
                .run()
                .await?;
        }
        let output = self
            .in_index()
            .args(["add", "-A", "--", "."])
            .args(TOOL_CACHES)
            .output()
            .await?;
        if output.code == Some(0) {
            return Ok(());
        }
        let stderr = output.stderr_text();
        if stderr.contains(".lock") {
            return Err(GitError::Busy {
                repo: self.path().to_path_buf(),
                reason: "another capture of this attempt is staging".to_owned(),
            });
        }
        Err(GitError::Failed {
            command: "add".to_owned(),
            code: output.code,
            stderr,
        })
    }

    /// Captures the change: stages the worktree, then reads the raw listing and the canonical
    /// patch against the base.
    ///
    /// # Errors
    /// [`GitError::WorktreeMissing`], [`GitError::Busy`] when another capture of the same
    /// attempt is staging, or a git failure.
    pub async fn capture(&self) -> Result<Capture, GitError> {
        if !self.path().join(".git").exists() {
            return Err(GitError::WorktreeMissing {
                attempt: self.attempt().to_owned(),
                path: self.path().to_path_buf(),
            });
        }
        self.stage().await?;
        self.read_capture().await
    }

    /// Reads the capture from the already staged private index.
    pub(crate) async fn read_capture(&self) -> Result<Capture, GitError> {
        // Before the reads: write-tree takes the index lock to store its cache-tree.
        let tree = self.in_index().args(["write-tree"]).run().await?;
        let tree = String::from_utf8_lossy(&tree).trim().to_owned();
        let (diff, patch) = self.read_diff(self.base(), None).await?;
        Ok(Capture { diff, patch, tree })
    }

    /// The change from tree-ish `from` to tree-ish `to` (`None`: the staged private index),
    /// read with the same pinned options and canonical parsing as a capture. The model's
    /// `base` is `from`.
    async fn read_diff(
        &self,
        from: &str,
        to: Option<&str>,
    ) -> Result<(CapturedDiff, CanonicalPatch), GitError> {
        let sides: Vec<&str> = std::iter::once(from).chain(to).chain(["--"]).collect();
        let raw = self
            .diff_cmd(to.is_none())
            .args(["--raw", "-z", "--no-abbrev"])
            .args(sides.iter().copied())
            .run();
        let patch = self
            .diff_cmd(to.is_none())
            .args(PATCH_ARGS)
            .args(sides.iter().copied())
            .run();
        let (raw, patch) = tokio::join!(raw, patch);
        let entries = parse_raw(&raw?)?;
        let sizes = self.sizes(&entries).await?;
        Ok(CapturedDiff::assemble(from, &entries, patch?, &sizes)?)
    }

    /// The change between two captured trees (e.g. a revision against the attempt it
    /// revises), in the capture's model: renames, binaries and modes as a capture shows them.
    /// Attributes are still read from this worktree's base.
    ///
    /// # Errors
    /// [`GitError::Unreadable`] when an id is not a full object id, or a git
    /// failure (a tree that no longer exists).
    pub async fn diff_trees(&self, from: &str, to: &str) -> Result<CapturedDiff, GitError> {
        for id in [from, to] {
            if id.len() < 40 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(GitError::Unreadable(format!("not a tree id: {id:?}")));
            }
        }
        Ok(self.read_diff(from, Some(to)).await?.0)
    }

    async fn sizes(&self, entries: &[RawEntry]) -> Result<HashMap<String, u64>, GitError> {
        let mut oids: Vec<&str> = Vec::new();
        for entry in entries {
            for (oid, mode) in [
                (&entry.old_oid, &entry.old_mode),
                (&entry.new_oid, &entry.new_mode),
            ] {
                if !is_null_oid(oid) && mode != MODE_GITLINK {
                    oids.push(oid);
                }
            }
        }
        if oids.is_empty() {
            return Ok(HashMap::new());
        }
        let stdin = oids.join("\n").into_bytes();
        let stdout = self
            .in_index()
            .args(["cat-file", "--batch-check=%(objectname) %(objectsize)"])
            .stdin(stdin)
            .run()
            .await?;
        Ok(String::from_utf8_lossy(&stdout)
            .lines()
            .filter_map(|line| {
                let (oid, size) = line.split_once(' ')?;
                Some((oid.to_owned(), size.parse().ok()?))
            })
            .collect())
    }

    /// Every symlink in the staged tree (path → target), for the escape and locked-paths
    /// gates. Empty without a git call when the diff holds no symlink (nothing to resolve).
    pub async fn symlinks(
        &self,
        diff: &CapturedDiff,
    ) -> Result<BTreeMap<String, String>, GitError> {
        if !diff.files.iter().any(|f| f.new_is_symlink()) {
            return Ok(BTreeMap::new());
        }
        let listing = self
            .in_index()
            .args(["ls-files", "--stage", "-z"])
            .run()
            .await?;
        let mut links: Vec<(String, String)> = Vec::new();
        for entry in listing.split(|&b| b == 0) {
            // `<mode> <oid> <stage>\t<path>`
            let Some(tab) = entry.iter().position(|&b| b == b'\t') else {
                continue;
            };
            let meta = String::from_utf8_lossy(&entry[..tab]);
            let mut parts = meta.split(' ');
            if parts.next() != Some(MODE_SYMLINK) {
                continue;
            }
            let Some(oid) = parts.next() else { continue };
            links.push((
                oid.to_owned(),
                String::from_utf8_lossy(&entry[tab + 1..]).into_owned(),
            ));
        }
        let oids: Vec<&str> = links.iter().map(|(oid, _)| oid.as_str()).collect();
        let blobs = self.blobs(&oids).await?;
        Ok(links
            .into_iter()
            .filter_map(|(oid, path)| {
                let target = blobs.get(&oid)?;
                Some((path, String::from_utf8_lossy(target).into_owned()))
            })
            .collect())
    }

    /// Old and new contents of the manifests the locked-paths gate asks for.
    pub async fn manifests(
        &self,
        needs: &[ManifestNeed],
    ) -> Result<Vec<ManifestContents>, GitError> {
        let oids: Vec<&str> = needs
            .iter()
            .flat_map(|n| n.old_oid.iter().chain(n.new_oid.iter()))
            .map(String::as_str)
            .collect();
        let blobs = self.blobs(&oids).await?;
        Ok(needs
            .iter()
            .map(|need| ManifestContents {
                path: need.path.clone(),
                old: need.old_oid.as_ref().and_then(|o| blobs.get(o).cloned()),
                new: need.new_oid.as_ref().and_then(|o| blobs.get(o).cloned()),
            })
            .collect())
    }

    /// Blob contents by id (`git cat-file --batch`); missing objects are left out.
    async fn blobs(&self, oids: &[&str]) -> Result<HashMap<String, Vec<u8>>, GitError> {
        if oids.is_empty() {
            return Ok(HashMap::new());
        }
        let stdout = self
            .in_index()
            .args(["cat-file", "--batch"])
            .stdin(oids.join("\n").into_bytes())
            .run()
            .await?;
        let mut blobs = HashMap::new();
        let mut rest = &stdout[..];
        while !rest.is_empty() {
            let Some(eol) = rest.iter().position(|&b| b == b'\n') else {
                break;
            };
            let header = String::from_utf8_lossy(&rest[..eol]).into_owned();
            rest = &rest[eol + 1..];
            let parts: Vec<&str> = header.split(' ').collect();
            let [oid, _kind, size] = parts[..] else {
                // `<oid> missing`
                continue;
            };
            let size: usize = size
                .parse()
                .map_err(|_| GitError::Unreadable(format!("cat-file header {header:?}")))?;
            if rest.len() < size {
                return Err(GitError::Unreadable(
                    "cat-file output is truncated".to_owned(),
                ));
            }
            blobs.insert(oid.to_owned(), rest[..size].to_vec());
            rest = rest.get(size + 1..).unwrap_or_default();
        }
        Ok(blobs)
    }
}

impl Worktree {
    /// Gathers what the gates need for `capture` (manifest contents, the tree's symlinks)
    /// and runs every gate with the built-in secret rules.
    ///
    /// # Errors
    /// A git failure while reading blobs.
    pub async fn run_gates(
        &self,
        capture: &Capture,
        policy: &GatePolicy,
        known_keys: &[KnownKey<'_>],
    ) -> Result<Vec<GateResult>, GitError> {
        let manifests = self.manifests(&manifests_needed(&capture.diff)).await?;
        let symlinks = self.symlinks(&capture.diff).await?;
        let inputs = GateInputs {
            diff: &capture.diff,
            patch: &capture.patch,
            manifests: &manifests,
            symlinks: &symlinks,
            known_keys,
        };
        Ok(run_all(policy, SecretRules::builtin(), &inputs))
    }
}
