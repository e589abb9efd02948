//! Roles composer use cases: the block library, composing, presets, custom blocks, and
//! import/export of the roles file.
//!
//! Rules live in `switchyard_core::roles` (pure); rows in `switchyard_store::roles`. This
//! module loads, validates, delegates and maps outcomes to [`EngineError`]s.

use switchyard_core::roles::{
    compose, custom_id, limits, parse_bundle, resolve_preset, sanitize_line, slugify,
    validate_preset_name, ComposeRequest, ComposedRole, CustomBlockInput, ImportMode, ImportReport,
    RoleBlock, RoleError, RoleLibrary, RolePreset, RolesBundle, CUSTOM_PREFIX,
};
use switchyard_store::roles::PresetChange;
use switchyard_store::StoreError;

use crate::{Engine, EngineError};

/// How many numbered variants (`-2`, `-3`, … or ` copy 2`, …) to try for a free id or name.
const MAX_NUMBERED: u32 = 1_000;

impl Engine {
    /// Every block of the library: built-ins (by kind, in data order) then the user's custom
    /// blocks of each kind (by id). What `switchyard roles blocks` lists and the pickers show.
    pub async fn role_blocks(&self) -> Result<Vec<RoleBlock>, EngineError> {
        let library = self.role_library().await?;
        Ok(library.blocks().into_iter().cloned().collect())
    }

    /// Composes the role prompt for `request`: resolves `request.preset` (explicit persona,
    /// domain and format override the preset's; stack and guardrails extend it), then
    /// composes against built-in and custom blocks. Unknown ids are warnings in the result.
    ///
    /// Errors: `InvalidInput` for an empty or oversized task or list; `NotFound` for an
    /// unknown preset (the message suggests the closest name).
    pub async fn compose_role(&self, request: ComposeRequest) -> Result<ComposedRole, EngineError> {
        let request = if request.preset.is_some() {
            let presets = self.store().role_presets().await?;
            resolve_preset(request, &presets)?
        } else {
            request
        };
        let library = self.role_library().await?;
        Ok(compose(&request, &library)?)
    }

    /// The built-in blocks plus the stored custom blocks, for composing.
    pub async fn role_library(&self) -> Result<RoleLibrary, EngineError> {
        let custom = self.store().custom_role_blocks().await?;
        RoleLibrary::with_custom(custom).map_err(|e| corrupt("role_blocks", &e))
    }

    /// Every saved preset, by name.
    pub async fn list_role_presets(&self) -> Result<Vec<RolePreset>, EngineError> {
        Ok(self.store().role_presets().await?)
    }

    /// Saves `preset` (sanitized: see [`RolePreset::validated`]), replacing any preset with
    /// the same name. Ids are not checked against the library: unknown ones warn when
    /// composing. Returns the preset as stored.
    ///
    /// Errors: `InvalidInput` for an empty or too long name, too many entries, a too long id.
    pub async fn save_role_preset(&self, preset: RolePreset) -> Result<RolePreset, EngineError> {
        let preset = preset.validated()?;
        self.store().save_role_preset(&preset, &now()).await?;
        Ok(preset)
    }

    /// Renames a preset and returns it under its new name.
    ///
    /// Errors: `NotFound` when `from` does not exist; `InvalidInput` when `to` is invalid or
    /// taken by another preset.
    pub async fn rename_role_preset(
        &self,
        from: &str,
        to: &str,
    ) -> Result<RolePreset, EngineError> {
        let from = sanitize_line(from);
        let to = validate_preset_name(to)?;
        match self.store().rename_role_preset(&from, &to, &now()).await? {
            PresetChange::Done => self.preset_or_not_found(&to).await,
            PresetChange::NotFound => Err(preset_not_found(&from)),
            PresetChange::NameTaken => Err(name_taken(&to)),
        }
    }

    /// Copies a preset. Without `new_name`, the copy is named `<name> copy`, or
    /// `<name> copy 2`, `… copy 3`, … when taken. Returns the copy.
    ///
    /// Errors: `NotFound` when `name` does not exist; `InvalidInput` when `new_name` is
    /// invalid or taken.
    pub async fn duplicate_role_preset(
        &self,
        name: &str,
        new_name: Option<&str>,
    ) -> Result<RolePreset, EngineError> {
        let name = sanitize_line(name);
        if let Some(new_name) = new_name {
            let new_name = validate_preset_name(new_name)?;
            return match self
                .store()
                .duplicate_role_preset(&name, &new_name, &now())
                .await?
            {
                PresetChange::Done => self.preset_or_not_found(&new_name).await,
                PresetChange::NotFound => Err(preset_not_found(&name)),
                PresetChange::NameTaken => Err(name_taken(&new_name)),
            };
        }
        for n in 1..=MAX_NUMBERED {
            let candidate = copy_name(&name, n);
            match self
                .store()
                .duplicate_role_preset(&name, &candidate, &now())
                .await?
            {
                PresetChange::Done => return self.preset_or_not_found(&candidate).await,
                PresetChange::NotFound => return Err(preset_not_found(&name)),
                PresetChange::NameTaken => {}
            }
        }
        Err(EngineError::InvalidInput(format!(
            "every copy name for preset '{name}' is taken; pass a new name"
        )))
    }

    /// Deletes a preset.
    ///
    /// Errors: `NotFound` when it does not exist.
    pub async fn delete_role_preset(&self, name: &str) -> Result<(), EngineError> {
        let name = sanitize_line(name);
        if self.store().delete_role_preset(&name).await? {
            Ok(())
        } else {
            Err(preset_not_found(&name))
        }
    }

    /// Adds a custom block. Its id is `custom:<slug of the title>`, numbered (`-2`, `-3`, …)
    /// when taken; it never changes afterwards. Returns the stored block.
    ///
    /// Errors: `InvalidInput` when a field is empty or over its limit.
    pub async fn add_custom_block(
        &self,
        input: CustomBlockInput,
    ) -> Result<RoleBlock, EngineError> {
        let slug = slugify(&sanitize_line(&input.title));
        // Validate once up front so that a bad input fails before any id is tried.
        input.clone().into_block(&custom_id(&slug))?;
        for n in 1..=MAX_NUMBERED {
            let block = input
                .clone()
                .into_block(&custom_id(&numbered_slug(&slug, n)))?;
            if self
                .store()
                .insert_custom_role_block(&block, &now())
                .await?
            {
                return Ok(block);
            }
        }
        Err(EngineError::InvalidInput(format!(
            "every id for '{slug}' is taken; choose another title"
        )))
    }

    /// Replaces the content of custom block `id` (kind included); the id stays. Presets that
    /// name it pick the new content up. Returns the stored block.
    ///
    /// Errors: `NotFound` when no custom block has this id (built-in blocks cannot be
    /// edited); `InvalidInput` when a field is empty or over its limit.
    pub async fn update_custom_block(
        &self,
        id: &str,
        input: CustomBlockInput,
    ) -> Result<RoleBlock, EngineError> {
        let id = id.trim();
        if !id.starts_with(CUSTOM_PREFIX) {
            return Err(block_not_found(id));
        }
        let block = input.into_block(id)?;
        if self
            .store()
            .update_custom_role_block(&block, &now())
            .await?
        {
            Ok(block)
        } else {
            Err(block_not_found(id))
        }
    }

    /// Deletes custom block `id`. Presets naming it keep the id and warn when composing.
    ///
    /// Errors: `NotFound` when no custom block has this id.
    pub async fn delete_custom_block(&self, id: &str) -> Result<(), EngineError> {
        let id = id.trim();
        if self.store().delete_custom_role_block(id).await? {
            Ok(())
        } else {
            Err(block_not_found(id))
        }
    }

    /// The roles file: every custom block and preset as pretty JSON
    /// (`{"version":1,"blocks":[…],"presets":[…]}`), byte-identical for the same data.
    pub async fn export_roles(&self) -> Result<String, EngineError> {
        let blocks = self.store().custom_role_blocks().await?;
        let presets = self.store().role_presets().await?;
        let bundle = RolesBundle::new(blocks, presets).map_err(|e| corrupt("role_blocks", &e))?;
        Ok(bundle.to_json())
    }

    /// Imports a roles file. The whole file is validated first, then written in one
    /// transaction: a malformed file or a failure changes nothing.
    ///
    /// Errors: `InvalidInput` naming the first problem and its position
    /// (`roles file: blocks[2] (custom:x): title is empty`).
    pub async fn import_roles(
        &self,
        json: &str,
        mode: ImportMode,
    ) -> Result<ImportReport, EngineError> {
        let bundle = parse_bundle(json)?;
        Ok(self.store().import_roles(&bundle, mode, &now()).await?)
    }

    async fn preset_or_not_found(&self, name: &str) -> Result<RolePreset, EngineError> {
        self.store()
            .role_preset(name)
            .await?
            .ok_or_else(|| preset_not_found(name))
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn corrupt(table: &'static str, error: &RoleError) -> EngineError {
    EngineError::Store(StoreError::Corrupt {
        table,
        detail: error.to_string(),
    })
}

fn preset_not_found(name: &str) -> EngineError {
    EngineError::NotFound(format!("no preset named '{name}'"))
}

fn block_not_found(id: &str) -> EngineError {
    EngineError::NotFound(format!("no custom block with id '{id}'"))
}

fn name_taken(name: &str) -> EngineError {
    EngineError::InvalidInput(format!("a preset named '{name}' already exists"))
}

/// `slug` for `n == 1`, else `slug-n`, shortened so the result stays a valid slug.
fn numbered_slug(slug: &str, n: u32) -> String {
    if n == 1 {
        return slug.to_owned();
    }
    let suffix = format!("-{n}");
    let keep = limits::MAX_SLUG_CHARS.saturating_sub(suffix.len());
    let base: String = slug.chars().take(keep).collect();
    format!("{}{suffix}", base.trim_end_matches('-'))
}

/// `<name> copy`, then `<name> copy 2`, …, shortened to fit the preset name limit.
fn copy_name(name: &str, n: u32) -> String {
    let suffix = if n == 1 {
        " copy".to_owned()
    } else {
        format!(" copy {n}")
    };
    let keep = limits::MAX_PRESET_NAME_CHARS.saturating_sub(suffix.chars().count());
    let base: String = name.chars().take(keep).collect();
    format!("{}{suffix}", base.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchyard_core::roles::check_slug;

    #[test]
    fn numbered_slugs_stay_valid() {
        assert_eq!(numbered_slug("review", 1), "review");
        assert_eq!(numbered_slug("review", 12), "review-12");
        let long = "a".repeat(limits::MAX_SLUG_CHARS);
        let numbered = numbered_slug(&long, 7);
        assert_eq!(numbered.len(), limits::MAX_SLUG_CHARS);
        assert!(numbered.ends_with("-7"));
        check_slug(&numbered).expect("valid slug");
    }

    #[test]
    fn copy_names_fit_the_limit() {
        assert_eq!(copy_name("API", 1), "API copy");
        assert_eq!(copy_name("API", 3), "API copy 3");
        let long = "n".repeat(limits::MAX_PRESET_NAME_CHARS);
        let copy = copy_name(&long, 2);
        assert_eq!(copy.chars().count(), limits::MAX_PRESET_NAME_CHARS);
        validate_preset_name(&copy).expect("valid name");
    }
}
