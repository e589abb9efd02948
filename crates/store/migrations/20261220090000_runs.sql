-- Runs (issue 13): one task executed across one or many models and workers, in one of five
-- modes (single, collective, cascade, plan, swarm), under limits and a hard USD cap.
--
-- `state` columns hold `switchyard_core::run::{RunState, NodeState, CallState}::as_str()`.
-- A live run (queued, planning, running) carries an owner lease like an attempt: the process
-- id and random token of the engine instance executing it, and its last heartbeat. Every
-- change is a guarded UPDATE (`WHERE state = ? AND owner_token IS ?`); nodes and calls change
-- only while the caller holds the run's lease. `cancel_requested_ms` is how another process
-- asks the owner to cancel.
CREATE TABLE runs (
    id                  TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
    task                TEXT NOT NULL,
    mode                TEXT NOT NULL,
    state               TEXT NOT NULL,
    reason              TEXT,
    launcher            TEXT NOT NULL,
    -- The request as given, the plan / DAG the nodes came from, the cascade ladder (JSON).
    request_json        TEXT NOT NULL,
    plan_json           TEXT,
    ladder_json         TEXT,
    limits_json         TEXT NOT NULL,
    -- The ledger: spent + reserved never exceeds max_usd.
    max_usd             REAL NOT NULL,
    spent_usd           REAL NOT NULL DEFAULT 0,
    reserved_usd        REAL NOT NULL DEFAULT 0,
    baseline_model      TEXT,
    baseline_usd        REAL,
    repo                TEXT,
    base                TEXT,
    error_code          TEXT,
    error_message       TEXT,
    created_ms          INTEGER NOT NULL,
    updated_ms          INTEGER NOT NULL,
    started_ms          INTEGER,
    finished_ms         INTEGER,
    owner_pid           INTEGER,
    owner_token         TEXT,
    heartbeat_ms        INTEGER,
    cancel_requested_ms INTEGER
) STRICT;

CREATE INDEX runs_by_created ON runs (created_ms DESC, id DESC);
CREATE INDEX runs_by_state ON runs (state);

-- The nodes of a run, in plan order. A text node's output is a file under
-- `<home>/artifacts/runs/<run>/<node>.md` recorded with its SHA-256 once complete; recover
-- keeps a done node only when that file still matches.
CREATE TABLE run_nodes (
    run_id            TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    node_id           TEXT NOT NULL CHECK (length(node_id) BETWEEN 1 AND 64),
    position          INTEGER NOT NULL,
    task              TEXT NOT NULL,
    kind              TEXT NOT NULL,
    role              TEXT NOT NULL,
    state             TEXT NOT NULL,
    model             TEXT,
    worker            TEXT,
    depends_on_json   TEXT NOT NULL,
    join_rule         TEXT NOT NULL,
    context_from_json TEXT NOT NULL,
    rung              INTEGER,
    trace_json        TEXT,
    output_path       TEXT,
    output_sha256     TEXT,
    output_chars      INTEGER,
    used_inputs_json  TEXT,
    attempt_id        TEXT,
    cost_usd          REAL NOT NULL DEFAULT 0,
    tokens_in         INTEGER NOT NULL DEFAULT 0,
    tokens_out        INTEGER NOT NULL DEFAULT 0,
    started_ms        INTEGER,
    finished_ms       INTEGER,
    error_code        TEXT,
    error_message     TEXT,
    rating            INTEGER CHECK (rating BETWEEN 1 AND 5),
    PRIMARY KEY (run_id, node_id)
) STRICT;

-- Every try of a node: a model call recorded `reserved` (with its worst case) BEFORE it is
-- made, then `settled` / `failed` with what it cost, or `released` when it was never made.
-- A call left `reserved` by a dead owner counts as spent at its reservation.
CREATE TABLE run_calls (
    run_id       TEXT NOT NULL,
    node_id      TEXT NOT NULL,
    n            INTEGER NOT NULL,
    purpose      TEXT NOT NULL,
    model        TEXT NOT NULL,
    worker       TEXT,
    rung         INTEGER,
    state        TEXT NOT NULL,
    reserved_usd REAL NOT NULL,
    cost_usd     REAL NOT NULL DEFAULT 0,
    tokens_in    INTEGER NOT NULL DEFAULT 0,
    tokens_out   INTEGER NOT NULL DEFAULT 0,
    started_ms   INTEGER NOT NULL,
    finished_ms  INTEGER,
    error        TEXT,
    signal_json  TEXT,
    attempt_id   TEXT,
    PRIMARY KEY (run_id, node_id, n),
    FOREIGN KEY (run_id, node_id) REFERENCES run_nodes(run_id, node_id) ON DELETE CASCADE
) STRICT;

-- State changes and ledger moves, numbered per run by the INSERT itself (MAX + 1 in one
-- statement), so gap-free with any number of writers. Streamed text is not stored here.
CREATE TABLE run_events (
    run_id    TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    at_ms     INTEGER NOT NULL,
    body_json TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) STRICT;

-- A code node's tries are attempts.
ALTER TABLE attempts ADD COLUMN run_id TEXT;
ALTER TABLE attempts ADD COLUMN node_id TEXT;
CREATE INDEX attempts_by_run ON attempts (run_id);

-- A rating of a run's node (`<run>/<node>`); re-rating the node replaces it.
ALTER TABLE ratings ADD COLUMN run_node TEXT;
CREATE UNIQUE INDEX ratings_one_per_run_node ON ratings (run_node) WHERE run_node IS NOT NULL;
