-- The last good snapshot of each catalog source, in Switchyard's own snapshot format
-- (parsed records as JSON). Replaced only when a refresh of that source succeeds.
CREATE TABLE source_snapshots (
    source      TEXT PRIMARY KEY NOT NULL,
    fetched_at  TEXT,
    data_date   TEXT,
    origin      TEXT NOT NULL,
    records     INTEGER NOT NULL,
    snapshot    TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

-- The outcome of the last refresh attempt per source (success clears the error).
CREATE TABLE source_attempts (
    source       TEXT PRIMARY KEY NOT NULL,
    attempted_at TEXT NOT NULL,
    error        TEXT
);

-- Users' corrections of alias matches, applied on every refresh.
CREATE TABLE catalog_overrides (
    source     TEXT NOT NULL,
    record_key TEXT NOT NULL,
    model_id   TEXT NOT NULL,
    action     TEXT NOT NULL CHECK (action IN ('add', 'remove')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (source, record_key, model_id)
);
