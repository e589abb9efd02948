//! The roles composer's tables: custom role blocks and presets.
//!
//! Values are validated by `switchyard_core::roles` before they get here; this module stores
//! and loads them, and enforces uniqueness (block ids, preset names) and atomic imports.
//! Lists of ids are stored as JSON arrays.

use std::collections::HashSet;

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, Sqlite, Transaction};
use switchyard_core::roles::{
    BlockKind, BlockSource, ImportMode, ImportReport, RoleBlock, RolePreset, RolesBundle,
    StackGroup,
};

use crate::{Store, StoreError};

/// Outcome of renaming or duplicating a preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetChange {
    /// Done.
    Done,
    /// No preset has the source name.
    NotFound,
    /// Another preset already has the target name; nothing changed.
    NameTaken,
}

const BLOCK_COLUMNS: &str = "id, kind, title, description, prompt, aliases, stack_group";
const PRESET_COLUMNS: &str = "name, persona, stack, domain, format, guardrails";

impl Store {
    /// Every custom block, by kind (section order) then id.
    pub async fn custom_role_blocks(&self) -> Result<Vec<RoleBlock>, StoreError> {
        let rows = sqlx::query(&format!("SELECT {BLOCK_COLUMNS} FROM role_blocks"))
            .fetch_all(self.pool())
            .await?;
        let mut blocks = rows
            .iter()
            .map(block_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        blocks.sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
        Ok(blocks)
    }

    /// One custom block by id.
    pub async fn custom_role_block(&self, id: &str) -> Result<Option<RoleBlock>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {BLOCK_COLUMNS} FROM role_blocks WHERE id = ?"
        ))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(block_from_row).transpose()
    }

    /// Inserts a new custom block. Returns `false` (and changes nothing) when the id is
    /// taken. `now` is an RFC 3339 timestamp.
    pub async fn insert_custom_role_block(
        &self,
        block: &RoleBlock,
        now: &str,
    ) -> Result<bool, StoreError> {
        let result = sqlx::query(
            "INSERT INTO role_blocks
                 (id, kind, title, description, prompt, aliases, stack_group, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT(id) DO NOTHING",
        )
        .bind(&block.id)
        .bind(block.kind.id())
        .bind(&block.title)
        .bind(&block.description)
        .bind(&block.prompt)
        .bind(json_list(&block.aliases))
        .bind(block.group.map(StackGroup::id))
        .bind(now)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(result.rows_affected() == 1)
    }

    /// Replaces the stored block with the same id. Returns `false` when there is none.
    pub async fn update_custom_role_block(
        &self,
        block: &RoleBlock,
        now: &str,
    ) -> Result<bool, StoreError> {
        let result = sqlx::query(
            "UPDATE role_blocks
             SET kind = ?, title = ?, description = ?, prompt = ?, aliases = ?, stack_group = ?,
                 updated_at = ?
             WHERE id = ?",
        )
        .bind(block.kind.id())
        .bind(&block.title)
        .bind(&block.description)
        .bind(&block.prompt)
        .bind(json_list(&block.aliases))
        .bind(block.group.map(StackGroup::id))
        .bind(now)
        .bind(&block.id)
        .execute(self.pool())
        .await?;
        Ok(result.rows_affected() == 1)
    }

    /// Deletes a custom block. Returns `false` when there was none. Presets naming it keep
    /// the id (composing then warns).
    pub async fn delete_custom_role_block(&self, id: &str) -> Result<bool, StoreError> {
        let result = sqlx::query("DELETE FROM role_blocks WHERE id = ?")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(result.rows_affected() == 1)
    }

    /// Every preset, by name.
    pub async fn role_presets(&self) -> Result<Vec<RolePreset>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {PRESET_COLUMNS} FROM role_presets ORDER BY name"
        ))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(preset_from_row).collect()
    }

    /// One preset by exact name.
    pub async fn role_preset(&self, name: &str) -> Result<Option<RolePreset>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {PRESET_COLUMNS} FROM role_presets WHERE name = ?"
        ))
        .bind(name)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(preset_from_row).transpose()
    }

    /// Creates the preset, or replaces the one with the same name (keeping its creation
    /// time).
    pub async fn save_role_preset(&self, preset: &RolePreset, now: &str) -> Result<(), StoreError> {
        upsert_preset(self.pool(), preset, now).await?;
        Ok(())
    }

    /// Renames preset `from` to `to`.
    pub async fn rename_role_preset(
        &self,
        from: &str,
        to: &str,
        now: &str,
    ) -> Result<PresetChange, StoreError> {
        let result = sqlx::query("UPDATE role_presets SET name = ?, updated_at = ? WHERE name = ?")
            .bind(to)
            .bind(now)
            .bind(from)
            .execute(self.pool())
            .await;
        change_outcome(result)
    }

    /// Copies preset `from` under the name `to`.
    pub async fn duplicate_role_preset(
        &self,
        from: &str,
        to: &str,
        now: &str,
    ) -> Result<PresetChange, StoreError> {
        let result = sqlx::query(
            "INSERT INTO role_presets
                 (name, persona, stack, domain, format, guardrails, created_at, updated_at)
             SELECT ?, persona, stack, domain, format, guardrails, ?, ?
             FROM role_presets WHERE name = ?",
        )
        .bind(to)
        .bind(now)
        .bind(now)
        .bind(from)
        .execute(self.pool())
        .await;
        change_outcome(result)
    }

    /// Deletes a preset. Returns `false` when there was none.
    pub async fn delete_role_preset(&self, name: &str) -> Result<bool, StoreError> {
        let result = sqlx::query("DELETE FROM role_presets WHERE name = ?")
            .bind(name)
            .execute(self.pool())
            .await?;
        Ok(result.rows_affected() == 1)
    }

    /// Writes a validated roles file in one transaction: either everything is imported or
    /// nothing changes.
    ///
    /// `Merge` upserts the file's blocks (by id) and presets (by name) and keeps the rest;
    /// `Replace` also deletes stored blocks and presets the file does not contain. Creation
    /// times of replaced rows are kept.
    pub async fn import_roles(
        &self,
        bundle: &RolesBundle,
        mode: ImportMode,
        now: &str,
    ) -> Result<ImportReport, StoreError> {
        let mut tx = self.pool().begin().await?;
        let existing_ids = text_column(&mut tx, "SELECT id FROM role_blocks").await?;
        let existing_names = text_column(&mut tx, "SELECT name FROM role_presets").await?;
        let ids: HashSet<&str> = bundle.blocks.iter().map(|b| b.id.as_str()).collect();
        let names: HashSet<&str> = bundle.presets.iter().map(|p| p.name.as_str()).collect();

        let mut report = ImportReport {
            mode,
            blocks_imported: count(bundle.blocks.len()),
            presets_imported: count(bundle.presets.len()),
            blocks_replaced: count(
                existing_ids
                    .iter()
                    .filter(|id| ids.contains(id.as_str()))
                    .count(),
            ),
            presets_replaced: count(
                existing_names
                    .iter()
                    .filter(|n| names.contains(n.as_str()))
                    .count(),
            ),
            blocks_removed: 0,
            presets_removed: 0,
        };
        if mode == ImportMode::Replace {
            let keep_ids = json_list(bundle.blocks.iter().map(|b| &b.id));
            let removed = sqlx::query(
                "DELETE FROM role_blocks WHERE id NOT IN (SELECT value FROM json_each(?))",
            )
            .bind(keep_ids)
            .execute(&mut *tx)
            .await?;
            report.blocks_removed = count(removed.rows_affected());
            let keep_names = json_list(bundle.presets.iter().map(|p| &p.name));
            let removed = sqlx::query(
                "DELETE FROM role_presets WHERE name NOT IN (SELECT value FROM json_each(?))",
            )
            .bind(keep_names)
            .execute(&mut *tx)
            .await?;
            report.presets_removed = count(removed.rows_affected());
        }
        for block in &bundle.blocks {
            sqlx::query(
                "INSERT INTO role_blocks
                     (id, kind, title, description, prompt, aliases, stack_group, created_at,
                      updated_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT(id) DO UPDATE SET
                     kind = excluded.kind, title = excluded.title,
                     description = excluded.description, prompt = excluded.prompt,
                     aliases = excluded.aliases, stack_group = excluded.stack_group,
                     updated_at = excluded.updated_at",
            )
            .bind(&block.id)
            .bind(block.kind.id())
            .bind(&block.title)
            .bind(&block.description)
            .bind(&block.prompt)
            .bind(json_list(&block.aliases))
            .bind(block.group.map(StackGroup::id))
            .bind(now)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        for preset in &bundle.presets {
            upsert_preset(&mut *tx, preset, now).await?;
        }
        tx.commit().await?;
        Ok(report)
    }
}

async fn upsert_preset<'e, E>(executor: E, preset: &RolePreset, now: &str) -> Result<(), StoreError>
where
    E: sqlx::Executor<'e, Database = Sqlite>,
{
    sqlx::query(
        "INSERT INTO role_presets
             (name, persona, stack, domain, format, guardrails, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET
             persona = excluded.persona, stack = excluded.stack, domain = excluded.domain,
             format = excluded.format, guardrails = excluded.guardrails,
             updated_at = excluded.updated_at",
    )
    .bind(&preset.name)
    .bind(&preset.persona)
    .bind(json_list(&preset.stack))
    .bind(&preset.domain)
    .bind(&preset.format)
    .bind(json_list(&preset.guardrails))
    .bind(now)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(())
}

async fn text_column(
    tx: &mut Transaction<'_, Sqlite>,
    sql: &str,
) -> Result<Vec<String>, StoreError> {
    let rows: Vec<(String,)> = sqlx::query_as(sql).fetch_all(&mut **tx).await?;
    Ok(rows.into_iter().map(|(v,)| v).collect())
}

fn change_outcome(
    result: Result<sqlx::sqlite::SqliteQueryResult, sqlx::Error>,
) -> Result<PresetChange, StoreError> {
    match result {
        Ok(done) if done.rows_affected() == 0 => Ok(PresetChange::NotFound),
        Ok(_) => Ok(PresetChange::Done),
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(PresetChange::NameTaken),
        Err(e) => Err(e.into()),
    }
}

fn count(n: impl TryInto<u32>) -> u32 {
    n.try_into().unwrap_or(u32::MAX)
}

fn json_list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let out: Vec<String> = items.into_iter().map(|s| s.as_ref().to_owned()).collect();
    // A list of strings always serializes.
    serde_json::to_string(&out).unwrap_or_else(|_| "[]".to_owned())
}

fn parse_list(table: &'static str, column: &str, text: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        table,
        detail: format!("{column} is not a JSON list of strings: {e}"),
    })
}

fn block_from_row(row: &SqliteRow) -> Result<RoleBlock, StoreError> {
    let corrupt = |detail: String| StoreError::Corrupt {
        table: "role_blocks",
        detail,
    };
    let id: String = row.try_get("id")?;
    let kind: String = row.try_get("kind")?;
    let kind = BlockKind::from_id(&kind)
        .ok_or_else(|| corrupt(format!("block {id} has unknown kind '{kind}'")))?;
    let group: Option<String> = row.try_get("stack_group")?;
    let group = match group {
        Some(g) => Some(
            StackGroup::from_id(&g)
                .ok_or_else(|| corrupt(format!("block {id} has unknown stack group '{g}'")))?,
        ),
        None => None,
    };
    let aliases: String = row.try_get("aliases")?;
    Ok(RoleBlock {
        kind,
        title: row.try_get("title")?,
        description: row.try_get("description")?,
        prompt: row.try_get("prompt")?,
        aliases: parse_list("role_blocks", "aliases", &aliases)?,
        group,
        source: BlockSource::Custom,
        id,
    })
}

fn preset_from_row(row: &SqliteRow) -> Result<RolePreset, StoreError> {
    let stack: String = row.try_get("stack")?;
    let guardrails: String = row.try_get("guardrails")?;
    Ok(RolePreset {
        name: row.try_get("name")?,
        persona: row.try_get("persona")?,
        stack: parse_list("role_presets", "stack", &stack)?,
        domain: row.try_get("domain")?,
        format: row.try_get("format")?,
        guardrails: parse_list("role_presets", "guardrails", &guardrails)?,
    })
}
