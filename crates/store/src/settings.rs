//! Non-secret key/value settings.

use crate::{Store, StoreError};

impl Store {
    /// Reads a setting.
    pub async fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        let value: Option<(String,)> = sqlx::query_as("SELECT value FROM settings WHERE key = ?")
            .bind(key)
            .fetch_optional(self.pool())
            .await?;
        Ok(value.map(|(v,)| v))
    }

    /// Writes a setting, replacing any previous value. `now` is an RFC 3339 timestamp.
    pub async fn set_setting(&self, key: &str, value: &str, now: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(key)
        .bind(value)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Removes a setting; removing one that is not set is not an error.
    pub async fn delete_setting(&self, key: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM settings WHERE key = ?")
            .bind(key)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
