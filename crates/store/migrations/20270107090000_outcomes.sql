-- Outcomes as data: one record per finished attempt, run node and escalated rung (see the
-- engine's `outcomes`), stored so that routing reads a table instead of re-deriving every
-- record from the journal on every pick. A record holds the task's features, never its text.
CREATE TABLE outcomes (
    id           TEXT PRIMARY KEY NOT NULL,
    -- The job the record was derived from (a run's attempts are derived with their run).
    job_kind     TEXT NOT NULL CHECK (job_kind IN ('attempt', 'run')),
    job_id       TEXT NOT NULL,
    finished_ms  INTEGER NOT NULL,
    category     TEXT NOT NULL,
    model        TEXT,
    launcher     TEXT NOT NULL,
    succeeded    INTEGER NOT NULL CHECK (succeeded IN (0, 1)),
    record_json  TEXT NOT NULL
) STRICT;

CREATE INDEX outcomes_by_finished ON outcomes (finished_ms DESC, id);
CREATE INDEX outcomes_by_job ON outcomes (job_kind, job_id);

-- Which jobs' records are behind their rows: `version` counts the changes a record can
-- depend on (written by the triggers below, in the transaction of the change itself), `done`
-- the version the stored records were derived from. The engine re-derives a job's records
-- when version > done, so a crash or a second process can delay a record, never lose it.
CREATE TABLE outcome_jobs (
    job_kind TEXT NOT NULL CHECK (job_kind IN ('attempt', 'run')),
    job_id   TEXT NOT NULL,
    version  INTEGER NOT NULL,
    done     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_kind, job_id)
) STRICT;

CREATE INDEX outcome_jobs_behind ON outcome_jobs (job_id) WHERE version > done;

-- Backfill: every job there is, to be derived from what the journal holds.
INSERT INTO outcome_jobs (job_kind, job_id, version) SELECT 'attempt', id, 1 FROM attempts;
INSERT INTO outcome_jobs (job_kind, job_id, version) SELECT 'run', id, 1 FROM runs;

-- What a record reads: the attempt's state, checks, decision, usage and link to a run; a
-- node's state, model, rung and spend; a call's result. Heartbeats and leases do not count.
CREATE TRIGGER outcomes_attempt_inserted AFTER INSERT ON attempts BEGIN
    INSERT INTO outcome_jobs (job_kind, job_id, version) VALUES ('attempt', NEW.id, 1)
        ON CONFLICT (job_kind, job_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER outcomes_attempt_changed AFTER UPDATE OF
    state, worker, task, launcher, parent, started_ms, finished_ms, gates_passed,
    verification_json, usage_json, cost_usd, decision_json, run_id
    ON attempts BEGIN
    INSERT INTO outcome_jobs (job_kind, job_id, version) VALUES ('attempt', NEW.id, 1)
        ON CONFLICT (job_kind, job_id) DO UPDATE SET version = version + 1;
    INSERT INTO outcome_jobs (job_kind, job_id, version)
        SELECT 'run', NEW.run_id, 1 WHERE NEW.run_id IS NOT NULL
        ON CONFLICT (job_kind, job_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER outcomes_node_inserted AFTER INSERT ON run_nodes BEGIN
    INSERT INTO outcome_jobs (job_kind, job_id, version) VALUES ('run', NEW.run_id, 1)
        ON CONFLICT (job_kind, job_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER outcomes_node_changed AFTER UPDATE OF
    state, model, worker, rung, attempt_id, cost_usd, tokens_in, tokens_out, started_ms,
    finished_ms
    ON run_nodes BEGIN
    INSERT INTO outcome_jobs (job_kind, job_id, version) VALUES ('run', NEW.run_id, 1)
        ON CONFLICT (job_kind, job_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER outcomes_call_inserted AFTER INSERT ON run_calls BEGIN
    INSERT INTO outcome_jobs (job_kind, job_id, version) VALUES ('run', NEW.run_id, 1)
        ON CONFLICT (job_kind, job_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER outcomes_call_changed AFTER UPDATE ON run_calls BEGIN
    INSERT INTO outcome_jobs (job_kind, job_id, version) VALUES ('run', NEW.run_id, 1)
        ON CONFLICT (job_kind, job_id) DO UPDATE SET version = version + 1;
END;

-- A deleted job takes its records with it.
CREATE TRIGGER outcomes_attempt_deleted AFTER DELETE ON attempts BEGIN
    DELETE FROM outcomes WHERE job_kind = 'attempt' AND job_id = OLD.id;
    DELETE FROM outcome_jobs WHERE job_kind = 'attempt' AND job_id = OLD.id;
END;
CREATE TRIGGER outcomes_run_deleted AFTER DELETE ON runs BEGIN
    DELETE FROM outcomes WHERE job_kind = 'run' AND job_id = OLD.id;
    DELETE FROM outcome_jobs WHERE job_kind = 'run' AND job_id = OLD.id;
END;
