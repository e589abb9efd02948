//! Non-secret provider settings: base URL overrides of built-in providers and user-defined
//! providers. Keys never reach this table; they live in the OS keychain.
//!
//! Values are validated by the engine (provider ids, kinds, normalized URLs) before they get
//! here; this module stores and loads them.

use std::str::FromStr;

use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use switchyard_core::providers::ProviderKind;

use crate::{Store, StoreError};

/// One stored row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderRecord {
    /// The base URL override of a built-in provider.
    Override {
        /// Built-in provider id.
        id: String,
        /// The URL to use instead of the default.
        base_url: String,
    },
    /// A provider the user added.
    Custom {
        /// Its id (never a built-in id; the engine checks).
        id: String,
        /// Display name.
        name: String,
        /// `openai-compatible` or `anthropic`.
        kind: ProviderKind,
        /// Its base URL.
        base_url: String,
    },
}

impl ProviderRecord {
    /// The provider id.
    pub fn id(&self) -> &str {
        match self {
            ProviderRecord::Override { id, .. } | ProviderRecord::Custom { id, .. } => id,
        }
    }

    /// The base URL stored for it.
    pub fn base_url(&self) -> &str {
        match self {
            ProviderRecord::Override { base_url, .. } | ProviderRecord::Custom { base_url, .. } => {
                base_url
            }
        }
    }
}

const COLUMNS: &str = "id, custom, name, kind, base_url";

impl Store {
    /// Every stored provider row: overrides and custom providers, by id.
    pub async fn provider_records(&self) -> Result<Vec<ProviderRecord>, StoreError> {
        let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM providers ORDER BY id"))
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(record_from_row).collect()
    }

    /// The stored row of one provider, if any.
    pub async fn provider_record(&self, id: &str) -> Result<Option<ProviderRecord>, StoreError> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM providers WHERE id = ?"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(record_from_row).transpose()
    }

    /// Sets the base URL of a provider: an override for a built-in one (created or replaced),
    /// or the URL of a custom one. `now` is an RFC 3339 timestamp.
    pub async fn set_provider_base_url(
        &self,
        id: &str,
        base_url: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO providers (id, custom, base_url, created_at, updated_at)
             VALUES (?, 0, ?, ?, ?)
             ON CONFLICT(id) DO UPDATE SET base_url = excluded.base_url,
                                           updated_at = excluded.updated_at",
        )
        .bind(id)
        .bind(base_url)
        .bind(now)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Removes the base URL override of a built-in provider (back to its default). Returns
    /// whether there was one. Custom providers are not touched.
    pub async fn clear_provider_base_url(&self, id: &str) -> Result<bool, StoreError> {
        let result = sqlx::query("DELETE FROM providers WHERE id = ? AND custom = 0")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(result.rows_affected() > 0)
    }

    /// Adds a custom provider. Returns `false` (and changes nothing) when the id is taken.
    pub async fn insert_custom_provider(
        &self,
        id: &str,
        name: &str,
        kind: ProviderKind,
        base_url: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        let result = sqlx::query(
            "INSERT INTO providers (id, custom, name, kind, base_url, created_at, updated_at)
             VALUES (?, 1, ?, ?, ?, ?, ?)
             ON CONFLICT(id) DO NOTHING",
        )
        .bind(id)
        .bind(name)
        .bind(kind.as_str())
        .bind(base_url)
        .bind(now)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(result.rows_affected() > 0)
    }

    /// Deletes a custom provider; `false` when there was none.
    pub async fn delete_custom_provider(&self, id: &str) -> Result<bool, StoreError> {
        let result = sqlx::query("DELETE FROM providers WHERE id = ? AND custom = 1")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(result.rows_affected() > 0)
    }
}

fn record_from_row(row: &SqliteRow) -> Result<ProviderRecord, StoreError> {
    let corrupt = |detail: String| StoreError::Corrupt {
        table: "providers",
        detail,
    };
    let id: String = row.try_get("id")?;
    let base_url: Option<String> = row.try_get("base_url")?;
    let base_url = base_url.ok_or_else(|| corrupt(format!("{id}: no base_url")))?;
    if row.try_get::<i64, _>("custom")? == 0 {
        return Ok(ProviderRecord::Override { id, base_url });
    }
    let name: Option<String> = row.try_get("name")?;
    let kind: Option<String> = row.try_get("kind")?;
    let kind = kind
        .as_deref()
        .map(ProviderKind::from_str)
        .transpose()
        .map_err(|e| corrupt(format!("{id}: {e}")))?
        .ok_or_else(|| corrupt(format!("{id}: no kind")))?;
    Ok(ProviderRecord::Custom {
        name: name.unwrap_or_else(|| id.clone()),
        id,
        kind,
        base_url,
    })
}
