-- Attempts: one try of a coding task by one worker in its own worktree (issue 9).
--
-- `state` is `switchyard_core::attempt::AttemptState::as_str()`. A live attempt (queued,
-- preparing, running, verifying) carries an owner lease: the process id and a random token of
-- the engine instance that runs it, and the last heartbeat. Every state change is a guarded
-- UPDATE (`WHERE id = ? AND state = ? AND owner_token IS ?`), so two processes on one database
-- can never both advance one attempt. Review actions (approve, reject, request changes,
-- recover) take the lease for their duration and release it when done.
CREATE TABLE compares (
    id         TEXT PRIMARY KEY NOT NULL,
    task       TEXT NOT NULL,
    repo       TEXT NOT NULL,
    created_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE attempts (
    id              TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
    state           TEXT NOT NULL,
    worker          TEXT NOT NULL,
    worker_version  TEXT,
    task            TEXT NOT NULL,
    -- The full prompt the worker got: role, task, review comments.
    prompt          TEXT NOT NULL,
    repo            TEXT NOT NULL,
    base            TEXT NOT NULL,
    target_branch   TEXT,
    parent          TEXT REFERENCES attempts(id),
    compare_id      TEXT REFERENCES compares(id),
    launcher        TEXT NOT NULL,
    -- The attempt whose worktree and branch this one works in (itself, or the first attempt
    -- of a request-changes chain).
    worktree_id     TEXT NOT NULL,
    -- The request as given (verify, lock, timeout, preset), JSON.
    request_json    TEXT NOT NULL,
    verify_json     TEXT NOT NULL,
    created_ms      INTEGER NOT NULL,
    updated_ms      INTEGER NOT NULL,
    started_ms      INTEGER,
    finished_ms     INTEGER,
    diff_sha256     TEXT,
    files_changed   INTEGER,
    additions       INTEGER,
    deletions       INTEGER,
    gates_passed    INTEGER,
    gates_json      TEXT,
    verification_json TEXT,
    usage_json      TEXT,
    cost_usd        REAL,
    error_code      TEXT,
    error_message   TEXT,
    decision_json   TEXT,
    integration_json TEXT,
    commit_id       TEXT,
    owner_pid       INTEGER,
    owner_token     TEXT,
    heartbeat_ms    INTEGER,
    -- The worker's process group while it runs, so a group left behind by a dead owner can
    -- be stopped at the next open.
    worker_pgid     INTEGER
) STRICT;

CREATE INDEX attempts_by_created ON attempts (created_ms DESC, id DESC);
CREATE INDEX attempts_by_state ON attempts (state);
CREATE INDEX attempts_by_compare ON attempts (compare_id);

-- State changes, gate results and the worker's normalized output, numbered per attempt. The
-- number is assigned by the INSERT itself (MAX + 1 in one statement), so it is gap-free and
-- unique even with two writers.
CREATE TABLE attempt_events (
    attempt_id TEXT NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    at_ms      INTEGER NOT NULL,
    body_json  TEXT NOT NULL,
    PRIMARY KEY (attempt_id, seq)
) STRICT;

-- Files under `<home>/artifacts/<attempt>/` (diff JSON, raw worker output, verification
-- record), each with its SHA-256 at the time it was written.
CREATE TABLE artifacts (
    attempt_id TEXT NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    path       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    bytes      INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (attempt_id, name)
) STRICT;
