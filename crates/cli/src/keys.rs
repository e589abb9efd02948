//! `keys` and `providers`: provider keys in the OS keychain, provider settings (base URLs,
//! custom endpoints).
//!
//! A key is read from standard input only (hidden when it is a terminal), never from argv, and
//! goes straight into a `ProviderKey` (the engine's one validation rule, shared with the app);
//! nothing here prints more of it than its last four characters. A stored key is bound to the
//! origin of the provider's base URL when it was stored; `providers set --keep-key` moves it.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;
use switchyard_core::error::ErrorCode;
use switchyard_core::providers::{
    AddProviderRequest, KeyStatus, ProviderKind, ProviderStatus, ProviderTest,
};
use switchyard_engine::{Engine, InvalidKey, ProviderKey};

use crate::output::{print, CliError};

/// Most bytes read from standard input for a key: more than any valid key (the engine refuses
/// keys over `switchyard_engine::MAX_KEY_BYTES`), so a wrong pipe (a whole file) is cut off.
const MAX_STDIN_BYTES: u64 = 16 * 1024;

/// `switchyard keys …`
#[derive(Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    command: KeysCommand,
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Store (or replace) a provider's key in the OS keychain. The key is read from standard
    /// input (hidden when typed), never from the command line:
    /// `printf '%s' "$KEY" | switchyard keys set openrouter`.
    Set {
        /// Provider id (see `switchyard providers list`).
        provider: String,
    },
    /// Which providers have a key: stored (last 4 characters, and the origin it is held for),
    /// from the environment, or none; and whether it is held for the origin requests go to.
    List,
    /// Delete a provider's stored key (an environment variable still applies).
    Delete {
        /// Provider id.
        provider: String,
    },
    /// Request the provider's model list with its key: latency and model count, or the
    /// provider's own error. Exits 2 when the provider refused or did not answer.
    Test {
        /// Provider id.
        provider: String,
    },
}

/// `switchyard providers …`
#[derive(Args)]
pub struct ProvidersArgs {
    #[command(subcommand)]
    command: ProvidersCommand,
}

#[derive(Subcommand)]
enum ProvidersCommand {
    /// Every provider with its kind, base URL, key status and (local servers) reachability.
    List,
    /// Point a provider at another base URL, or back to its default. A stored key stays bound
    /// to the origin it was stored for and is not sent to a new one unless --keep-key moves it.
    Set {
        /// Provider id.
        id: String,
        /// The new base URL, e.g. http://127.0.0.1:8000/v1.
        #[arg(long, value_name = "URL", required_unless_present = "default")]
        base_url: Option<String>,
        /// Go back to the built-in default URL.
        #[arg(long, conflicts_with = "base_url")]
        default: bool,
        /// Move the stored key to the new URL's origin, so it is sent there (https, or this
        /// machine, only).
        #[arg(long)]
        keep_key: bool,
    },
    /// Add an OpenAI-compatible or Anthropic endpoint of your own (vLLM, a proxy, a gateway).
    Add {
        /// New id: a lowercase letter, then a-z, 0-9, '-' or '_'.
        id: String,
        /// Wire format: openai (OpenAI-compatible chat completions) or anthropic.
        #[arg(long, value_parser = ["openai", "openai-compatible", "anthropic"])]
        kind: String,
        /// Base URL, e.g. http://127.0.0.1:8000/v1.
        #[arg(long, value_name = "URL")]
        base_url: String,
        /// Display name (default: the id).
        #[arg(long)]
        name: Option<String>,
    },
    /// Remove a custom provider and its stored key.
    Remove {
        /// Provider id.
        id: String,
    },
}

/// One provider's key as `keys list`, `keys set` and `keys delete` report it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyRow {
    provider: String,
    name: String,
    /// Environment variable honoured when the keychain has no key.
    env_var: Option<String>,
    /// Never the key: missing, stored (last 4, origin), originMismatch (last 4, the origin it
    /// is held for, the origin requests go to), insecureOrigin, environment (variable, last 4),
    /// unavailable.
    key: KeyStatus,
    /// The base URL requests go to.
    base_url: String,
    /// Its origin: a key is only sent when it is held for this origin.
    origin: Option<String>,
    /// The origin the key is held for (stored keys; for an environment key held back, the
    /// provider's default origin).
    key_origin: Option<String>,
    /// Whether a key exists and may go to `origin`; `None` when there is no key at all.
    key_origin_matches: Option<bool>,
    /// `keys delete` only: whether a stored key was there to delete.
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted: Option<bool>,
}

impl KeyRow {
    fn of(status: ProviderStatus, deleted: Option<bool>) -> Self {
        let (key_origin, key_origin_matches) = binding(&status);
        Self {
            provider: status.id,
            name: status.name,
            env_var: status.env_var,
            key: status.key,
            base_url: status.base_url,
            origin: status.origin,
            key_origin,
            key_origin_matches,
            deleted,
        }
    }
}

/// Runs `switchyard keys …`.
pub async fn keys(engine: &Engine, args: KeysArgs, json: bool) -> Result<ExitCode, CliError> {
    match args.command {
        KeysCommand::Set { provider } => {
            let status = engine.provider_status(&provider).await?;
            if status.kind == ProviderKind::Local {
                return Err(CliError::invalid(format!("{} takes no key", status.name)));
            }
            // Learn about an unusable keychain before asking for the key, not after.
            if let KeyStatus::Unavailable { message } = &status.key {
                return Err(CliError {
                    code: ErrorCode::Keychain,
                    message: message.clone(),
                });
            }
            let key = read_key(&status)?;
            let stored = engine.set_key(&status.id, key).await?;
            print(&KeyRow::of(stored, None), json, |row| {
                format!("stored the {} key {}", row.name, describe_key(&row.key))
            })
        }
        KeysCommand::List => {
            let rows: Vec<KeyRow> = engine
                .list_providers()
                .await?
                .into_iter()
                .filter(|p| p.kind != ProviderKind::Local)
                .map(|p| KeyRow::of(p, None))
                .collect();
            print(&rows, json, |rows| key_table(rows))
        }
        KeysCommand::Delete { provider } => {
            let deleted = engine.delete_key(&provider).await?;
            let status = engine.provider_status(&provider).await?;
            print(&KeyRow::of(status, Some(deleted)), json, |row| {
                let what = if deleted {
                    format!("deleted the stored {} key", row.name)
                } else {
                    format!("no {} key was stored", row.name)
                };
                match &row.key {
                    KeyStatus::Environment { variable, .. } => {
                        format!("{what}; {variable} is still set and will be used")
                    }
                    _ => what,
                }
            })
        }
        KeysCommand::Test { provider } => {
            let report = engine.test_provider(&provider).await?;
            print(&report, json, describe_test)?;
            Ok(if report.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            })
        }
    }
}

/// Runs `switchyard providers …`.
pub async fn providers(
    engine: &Engine,
    args: ProvidersArgs,
    json: bool,
) -> Result<ExitCode, CliError> {
    match args.command {
        ProvidersCommand::List => print(&engine.list_providers().await?, json, |list| {
            provider_table(list)
        }),
        ProvidersCommand::Set {
            id,
            base_url,
            default,
            keep_key,
        } => {
            let url = if default { None } else { base_url };
            let status = if keep_key {
                engine
                    .set_provider_base_url_keeping_key(&id, url.as_deref())
                    .await?
            } else {
                engine.set_provider_base_url(&id, url.as_deref()).await?
            };
            print(&status, json, |s| {
                let line = format!("{} now uses {}", s.name, s.base_url);
                match &s.key {
                    KeyStatus::OriginMismatch {
                        origin,
                        target_origin,
                        variable: None,
                        ..
                    } => format!(
                        "{line}\nits key stays bound to {origin} and is not sent to \
                         {target_origin}; add --keep-key to move it there"
                    ),
                    KeyStatus::OriginMismatch {
                        origin,
                        target_origin,
                        variable: Some(variable),
                        ..
                    } => format!(
                        "{line}\n{variable} is only sent to {origin} or to this machine, not \
                         to {target_origin}; store a key for it with `switchyard keys set {}`",
                        s.id
                    ),
                    KeyStatus::Stored { origin, .. } if keep_key => {
                        format!("{line}; its key is now held for {origin}")
                    }
                    _ => line,
                }
            })
        }
        ProvidersCommand::Add {
            id,
            kind,
            base_url,
            name,
        } => {
            let kind: ProviderKind = kind
                .parse()
                .map_err(|e| CliError::invalid(format!("{e}")))?;
            let status = engine
                .add_provider(AddProviderRequest {
                    id,
                    name,
                    kind,
                    base_url,
                })
                .await?;
            print(&status, json, |s| {
                format!(
                    "added {} ({}, {}); store a key with `switchyard keys set {}` if it needs one",
                    s.id, s.kind, s.base_url, s.id
                )
            })
        }
        ProvidersCommand::Remove { id } => {
            engine.remove_provider(&id).await?;
            print(&serde_json::json!({ "removed": id }), json, |_| {
                format!("removed {id}")
            })
        }
    }
}

/// Reads one key from standard input: hidden when typed at a terminal, otherwise the whole
/// (bounded) input, then checks it with [`ProviderKey::parse`], the rule the app uses too.
fn read_key(provider: &ProviderStatus) -> Result<ProviderKey, CliError> {
    let stdin = std::io::stdin();
    let text = if stdin.is_terminal() {
        eprint!(
            "Paste the {} key (input hidden), then press Enter: ",
            provider.name
        );
        rpassword::read_password()
            .map_err(|e| CliError::invalid(format!("cannot read the key from the terminal: {e}")))?
    } else {
        let mut text = String::new();
        stdin
            .lock()
            .take(MAX_STDIN_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| {
                CliError::invalid(format!("cannot read the key from standard input: {e}"))
            })?;
        if text.len() as u64 > MAX_STDIN_BYTES {
            return Err(CliError::invalid(format!(
                "standard input holds more than {MAX_STDIN_BYTES} bytes; pipe in only the key"
            )));
        }
        text
    };
    ProviderKey::parse(text).map_err(|error| match error {
        InvalidKey::Empty => CliError::invalid(format!(
            "no key on standard input. Keys are never taken from the command line; pipe one in, \
             e.g. `printf '%s' \"$KEY\" | switchyard keys set {}`, or run it in a terminal to \
             paste it",
            provider.id
        )),
        other => CliError::invalid(other.to_string()),
    })
}

/// The origin a key is held for, and whether it may go where requests go now.
fn binding(status: &ProviderStatus) -> (Option<String>, Option<bool>) {
    match &status.key {
        KeyStatus::Stored { origin, .. } => (Some(origin.clone()), Some(true)),
        KeyStatus::Environment { .. } => (status.origin.clone(), Some(true)),
        KeyStatus::OriginMismatch { origin, .. } | KeyStatus::InsecureOrigin { origin, .. } => {
            (Some(origin.clone()), Some(false))
        }
        KeyStatus::Missing | KeyStatus::NotNeeded | KeyStatus::Unavailable { .. } => (None, None),
    }
}

/// "stored …55d2", "from OPENAI_API_KEY …abcd", "no key".
fn describe_key(key: &KeyStatus) -> String {
    match key {
        KeyStatus::Missing => "no key".into(),
        KeyStatus::Stored { last4, origin } => format!("stored …{last4}, held for {origin}"),
        KeyStatus::Environment { variable, last4 } => format!("from {variable} …{last4}"),
        KeyStatus::OriginMismatch {
            last4,
            origin,
            target_origin,
            variable: None,
        } => format!("stored …{last4}, held for {origin}: not sent to {target_origin}"),
        KeyStatus::OriginMismatch {
            last4,
            origin,
            target_origin,
            variable: Some(variable),
        } => format!(
            "from {variable} …{last4}, only for {origin} or this machine: not sent to {target_origin}"
        ),
        KeyStatus::InsecureOrigin { last4, origin } => {
            format!("stored …{last4}, held for {origin}: never sent over plain http")
        }
        KeyStatus::NotNeeded => "no key needed".into(),
        KeyStatus::Unavailable { .. } => "keychain unavailable".into(),
    }
}

/// The keychain's reason, once, under a table whose rows say "keychain unavailable".
fn unavailable_note<'a>(mut keys: impl Iterator<Item = &'a KeyStatus>) -> Option<String> {
    keys.find_map(|k| match k {
        KeyStatus::Unavailable { message } => Some(format!("\n{message}")),
        _ => None,
    })
}

fn key_table(rows: &[KeyRow]) -> String {
    let mut lines: Vec<String> = rows
        .iter()
        .map(|row| {
            let hint = match (&row.key, &row.env_var) {
                (KeyStatus::Missing, Some(var)) => format!(" (or set {var})"),
                _ => String::new(),
            };
            format!(
                "{:<20} {:<22} {}{hint}",
                row.provider,
                row.name,
                describe_key(&row.key)
            )
        })
        .collect();
    lines.extend(unavailable_note(rows.iter().map(|r| &r.key)));
    lines.join("\n")
}

fn provider_table(list: &[ProviderStatus]) -> String {
    let mut lines: Vec<String> = list
        .iter()
        .map(|p| {
            let state = match &p.local {
                Some(local) if local.reachable => {
                    format!("reachable, {} models", local.model_count.unwrap_or(0))
                }
                Some(local) => format!(
                    "not reachable: {}",
                    local.error.as_deref().unwrap_or("no answer")
                ),
                None => describe_key(&p.key),
            };
            let id = if p.custom {
                format!("{} (custom)", p.id)
            } else {
                p.id.clone()
            };
            format!(
                "{id:<20} {:<18} {:<56} {state}",
                p.kind.as_str(),
                p.base_url
            )
        })
        .collect();
    lines.extend(unavailable_note(list.iter().map(|p| &p.key)));
    lines.join("\n")
}

fn describe_test(report: &ProviderTest) -> String {
    let status = report
        .http_status
        .map(|s| format!("HTTP {s}, "))
        .unwrap_or_default();
    if report.ok {
        format!(
            "ok: {} models in {} ms ({status}{})",
            report.model_count.unwrap_or(0),
            report.latency_ms,
            report.url
        )
    } else {
        format!(
            "failed after {} ms ({status}{}): {}",
            report.latency_ms,
            report.url,
            report.error.as_deref().unwrap_or("no answer")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_descriptions_show_at_most_the_last_four() {
        assert_eq!(
            describe_key(&KeyStatus::Stored {
                last4: "55d2".into(),
                origin: "https://api.openai.com".into()
            }),
            "stored …55d2, held for https://api.openai.com"
        );
        assert_eq!(
            describe_key(&KeyStatus::Environment {
                variable: "OPENAI_API_KEY".into(),
                last4: "abcd".into()
            }),
            "from OPENAI_API_KEY …abcd"
        );
        assert_eq!(describe_key(&KeyStatus::Missing), "no key");
    }

    #[test]
    fn the_keychain_reason_is_printed_once() {
        let unavailable = KeyStatus::Unavailable {
            message: "no keychain available: no D-Bus session bus".into(),
        };
        let row = |id: &str| KeyRow {
            provider: id.into(),
            name: id.into(),
            env_var: None,
            key: unavailable.clone(),
            base_url: "https://api.openai.com/v1".into(),
            origin: Some("https://api.openai.com".into()),
            key_origin: None,
            key_origin_matches: None,
            deleted: None,
        };
        let table = key_table(&[row("openai"), row("anthropic")]);
        assert_eq!(table.matches("keychain unavailable").count(), 2);
        assert_eq!(table.matches("no D-Bus session bus").count(), 1);
    }
}
