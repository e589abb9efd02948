-- Roles composer: the user's custom blocks and saved presets. Built-in blocks ship as data
-- files in crates/core/data/roles and are never stored here.

-- One custom block. Ids are namespaced ('custom:<slug>') so they never shadow a built-in.
CREATE TABLE role_blocks (
    id          TEXT PRIMARY KEY NOT NULL CHECK (id LIKE 'custom:_%'),
    kind        TEXT NOT NULL CHECK (kind IN ('persona', 'stack', 'domain', 'format', 'guardrail')),
    title       TEXT NOT NULL,
    description TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    -- JSON array of lowercase strings.
    aliases     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(aliases)),
    stack_group TEXT CHECK (stack_group IN ('language', 'framework', 'database', 'cloud', 'tool')),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;

-- A named selection of block ids. Ids are not foreign keys on purpose: a preset may name a
-- built-in block or a deleted custom block; composing turns unknown ids into warnings.
CREATE TABLE role_presets (
    name       TEXT PRIMARY KEY NOT NULL CHECK (length(name) > 0),
    persona    TEXT,
    -- JSON arrays of block ids, in order.
    stack      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(stack)),
    domain     TEXT,
    format     TEXT,
    guardrails TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(guardrails)),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;
