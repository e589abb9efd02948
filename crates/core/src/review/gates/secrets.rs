//! The secrets gate: no added line may carry a credential.
//!
//! Two sources: a rule set (`data/secret_rules.toml`, a reviewed, attributed subset of
//! gitleaks' default rules — vendor-prefixed token formats precise enough to block on) and every
//! key Switchyard holds, passed in as [`KnownKey`]s. Every added line of every text file is
//! scanned, including lines of files whose content the diff model omits; binary files are not
//! scanned. A finding names the file, the line and the rule; the value itself never appears in
//! a result, its `Debug` or its serialization.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use super::{Finding, GateName, GateResult};
use crate::review::diff::{CanonicalPatch, CapturedDiff};

/// Known keys shorter than this are not searched for (they would match ordinary text).
pub const MIN_KNOWN_KEY_LEN: usize = 8;

/// A key Switchyard holds (from the keychain), to be found in added lines. Its `Debug` prints
/// only the label.
#[derive(Clone, Copy)]
pub struct KnownKey<'a> {
    /// What the key is, for the finding (e.g. `openrouter`); must not be secret.
    pub label: &'a str,
    /// The key itself.
    pub value: &'a str,
}

impl std::fmt::Debug for KnownKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnownKey")
            .field("label", &self.label)
            .field("value", &"<redacted>")
            .finish()
    }
}

/// One compiled detection rule.
#[derive(Debug, Clone)]
pub struct SecretRule {
    /// The rule id (gitleaks' id where the rule comes from gitleaks).
    pub id: String,
    /// What it finds, for people.
    pub description: String,
    regex: Regex,
    keywords: Vec<String>,
    entropy: Option<f64>,
    allow: Vec<Regex>,
    secret_group: Option<usize>,
}

/// A compiled rule set.
#[derive(Debug, Clone)]
pub struct SecretRules {
    rules: Vec<SecretRule>,
}

/// A rule file that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretRulesError {
    /// The TOML does not have the expected shape.
    #[error("secret rules do not parse: {0}")]
    Parse(String),
    /// A rule's regex does not compile.
    #[error("secret rule {id} has an invalid regex: {reason}")]
    Regex {
        /// The rule.
        id: String,
        /// The compiler's message.
        reason: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    rules: Vec<RuleDef>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RuleDef {
    id: String,
    description: String,
    regex: String,
    #[serde(default)]
    keywords: Vec<String>,
    entropy: Option<f64>,
    #[serde(default)]
    allow: Vec<String>,
    secret_group: Option<usize>,
}

const BUILTIN_RULES: &str = include_str!("../../../data/secret_rules.toml");

impl SecretRules {
    /// The rules shipped with Switchyard, compiled once.
    pub fn builtin() -> &'static SecretRules {
        static RULES: OnceLock<SecretRules> = OnceLock::new();
        RULES.get_or_init(|| {
            // The file is ours and `builtin_rules_compile` proves it loads.
            #[allow(clippy::expect_used)]
            SecretRules::parse(BUILTIN_RULES).expect("the built-in secret rules compile")
        })
    }

    /// Compiles a rule file in the format of `data/secret_rules.toml`.
    ///
    /// # Errors
    /// [`SecretRulesError`] for a file that does not parse or a regex that does not compile.
    pub fn parse(text: &str) -> Result<SecretRules, SecretRulesError> {
        let file: RuleFile =
            toml::from_str(text).map_err(|e| SecretRulesError::Parse(e.message().to_owned()))?;
        let compile = |id: &str, pattern: &str| {
            Regex::new(pattern).map_err(|e| SecretRulesError::Regex {
                id: id.to_owned(),
                reason: e.to_string(),
            })
        };
        let mut rules = Vec::with_capacity(file.rules.len());
        for def in file.rules {
            let regex = compile(&def.id, &def.regex)?;
            let allow = def
                .allow
                .iter()
                .map(|p| compile(&def.id, p))
                .collect::<Result<_, _>>()?;
            rules.push(SecretRule {
                id: def.id,
                description: def.description,
                regex,
                keywords: def.keywords.iter().map(|k| k.to_lowercase()).collect(),
                entropy: def.entropy,
                allow,
                secret_group: def.secret_group,
            });
        }
        Ok(SecretRules { rules })
    }

    /// The rules, in file order.
    pub fn rules(&self) -> &[SecretRule] {
        &self.rules
    }
}

impl SecretRule {
    /// The length of the first secret this rule finds in `line`, if any.
    fn find(&self, line: &str, lowered: &str) -> Option<usize> {
        if !self.keywords.is_empty() && !self.keywords.iter().any(|k| lowered.contains(k.as_str()))
        {
            return None;
        }
        for captures in self.regex.captures_iter(line) {
            let group = self.secret_group.unwrap_or(usize::from(captures.len() > 1));
            let Some(secret) = captures.get(group).or_else(|| captures.get(0)) else {
                continue;
            };
            let secret = secret.as_str();
            if self
                .entropy
                .is_some_and(|min| shannon_entropy(secret) < min)
            {
                continue;
            }
            if self.allow.iter().any(|a| a.is_match(secret)) {
                continue;
            }
            return Some(secret.chars().count());
        }
        None
    }
}

/// Shannon entropy of `text` in bits per character.
fn shannon_entropy(text: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut total = 0usize;
    for c in text.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    let total = total as f64;
    counts
        .values()
        .map(|&n| {
            let p = n as f64 / total;
            -p * p.log2()
        })
        .sum()
}

/// Runs the secrets gate over every added line of `patch` (which must be `diff`'s own).
pub fn check(
    diff: &CapturedDiff,
    patch: &CanonicalPatch,
    rules: &SecretRules,
    known_keys: &[KnownKey<'_>],
) -> GateResult {
    let known: Vec<&KnownKey<'_>> = known_keys
        .iter()
        .filter(|k| k.value.len() >= MIN_KNOWN_KEY_LEN)
        .collect();
    let mut findings = Vec::new();
    let mut scanned = 0usize;
    for (index, file) in diff.files.iter().enumerate() {
        if file.is_binary {
            continue;
        }
        for added in patch.added_lines(index) {
            scanned += 1;
            let line = String::from_utf8_lossy(added.text);
            for key in &known {
                if line.contains(key.value) {
                    findings.push(Finding {
                        path: file.path.clone(),
                        line: Some(added.line),
                        rule: Some(format!("keychain:{}", key.label)),
                        message: format!(
                            "the {} key Switchyard holds appears here (value redacted)",
                            key.label
                        ),
                    });
                }
            }
            let lowered = line.to_lowercase();
            for rule in &rules.rules {
                if let Some(chars) = rule.find(&line, &lowered) {
                    findings.push(Finding {
                        path: file.path.clone(),
                        line: Some(added.line),
                        rule: Some(rule.id.clone()),
                        message: format!(
                            "{} ({chars} characters, value redacted)",
                            rule.description
                        ),
                    });
                }
            }
        }
    }
    GateResult::from_findings(
        GateName::Secrets,
        format!(
            "{} scanned with {} and {}",
            super::count(scanned, "added line", "added lines"),
            super::count(rules.rules.len(), "rule", "rules"),
            super::count(known.len(), "held key", "held keys")
        ),
        findings,
        "secret",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(line: &str) -> Vec<String> {
        let lowered = line.to_lowercase();
        SecretRules::builtin()
            .rules()
            .iter()
            .filter(|r| r.find(line, &lowered).is_some())
            .map(|r| r.id.clone())
            .collect()
    }

    #[test]
    fn builtin_rules_compile() {
        assert!(
            SecretRules::parse(BUILTIN_RULES)
                .expect("parses")
                .rules()
                .len()
                >= 40
        );
    }

    #[test]
    fn vendor_tokens_are_found() {
        assert_eq!(hits("key = \"AKIAZ7QW3RT5YU2IOPLK\""), ["aws-access-token"]);
        assert_eq!(
            hits("token: ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"),
            ["github-pat"]
        );
        assert_eq!(hits("-----BEGIN OPENSSH PRIVATE KEY-----"), ["private-key"]);
    }

    #[test]
    fn documented_examples_and_ordinary_code_are_not() {
        assert!(hits("aws_access_key_id = AKIAIOSFODNN7EXAMPLE").is_empty());
        assert!(hits("let ghp_count = 3; // ghp_ prefix").is_empty());
        assert!(hits("fn main() { println!(\"hello\"); }").is_empty());
    }

    #[test]
    fn known_key_debug_hides_the_value() {
        let key = KnownKey {
            label: "openrouter",
            value: "sk-or-v1-abcdef0123456789",
        };
        assert!(!format!("{key:?}").contains("abcdef"));
    }
}
