//! Key bindings: which origin each provider's stored key is bound to. Never a key: the key is
//! in the OS keychain under `<provider>@<origin>`; a row here holds only the origin, the last
//! four characters and when it was stored, so the UI can say "key held for <origin>".

use crate::{Store, StoreError};

/// One provider's binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyBinding {
    /// Provider id.
    pub provider: String,
    /// `scheme://host[:port]` the key was entered (or last moved) for.
    pub origin: String,
    /// Last four characters of the key.
    pub last4: String,
    /// RFC 3339 timestamp of the store or move.
    pub stored_at: String,
}

impl Store {
    /// Every binding, by provider id.
    pub async fn key_bindings(&self) -> Result<Vec<KeyBinding>, StoreError> {
        let rows: Vec<(String, String, String, String)> = sqlx::query_as(
            "SELECT provider, origin, last4, stored_at FROM key_bindings ORDER BY provider",
        )
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .map(|(provider, origin, last4, stored_at)| KeyBinding {
                provider,
                origin,
                last4,
                stored_at,
            })
            .collect())
    }

    /// The binding of one provider, if any.
    pub async fn key_binding(&self, provider: &str) -> Result<Option<KeyBinding>, StoreError> {
        let row: Option<(String, String, String, String)> = sqlx::query_as(
            "SELECT provider, origin, last4, stored_at FROM key_bindings WHERE provider = ?",
        )
        .bind(provider)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|(provider, origin, last4, stored_at)| KeyBinding {
            provider,
            origin,
            last4,
            stored_at,
        }))
    }

    /// Records (or replaces) the binding of `binding.provider`.
    pub async fn set_key_binding(&self, binding: &KeyBinding) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO key_bindings (provider, origin, last4, stored_at) VALUES (?, ?, ?, ?)
             ON CONFLICT(provider) DO UPDATE SET origin = excluded.origin,
                                                 last4 = excluded.last4,
                                                 stored_at = excluded.stored_at",
        )
        .bind(&binding.provider)
        .bind(&binding.origin)
        .bind(&binding.last4)
        .bind(&binding.stored_at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Deletes the binding of `provider`; `false` when there was none.
    pub async fn delete_key_binding(&self, provider: &str) -> Result<bool, StoreError> {
        let result = sqlx::query("DELETE FROM key_bindings WHERE provider = ?")
            .bind(provider)
            .execute(self.pool())
            .await?;
        Ok(result.rows_affected() > 0)
    }
}
