-- Non-secret provider settings: base URL overrides of built-in providers, and providers the
-- user added (OpenAI-compatible or Anthropic endpoints). Keys are never stored here: they live
-- in the OS keychain. Built-in providers without an override have no row.
CREATE TABLE providers (
    id         TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 40),
    -- 1 for a user-defined provider, 0 for an override of a built-in one.
    custom     INTEGER NOT NULL DEFAULT 0 CHECK (custom IN (0, 1)),
    name       TEXT,
    kind       TEXT CHECK (kind IN ('openai-compatible', 'anthropic')),
    base_url   TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK (custom = 0 OR (name IS NOT NULL AND kind IS NOT NULL AND base_url IS NOT NULL)),
    CHECK (custom = 1 OR (name IS NULL AND kind IS NULL AND base_url IS NOT NULL))
) STRICT;
