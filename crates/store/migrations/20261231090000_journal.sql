-- One journal for every job: attempts' and runs' events in one table, numbered per job by the
-- INSERT itself (MAX + 1 in one statement), so gap-free and unique with any number of writers.
-- Every existing event is kept with its number and time.
CREATE TABLE events (
    kind      TEXT NOT NULL CHECK (kind IN ('attempt', 'run')),
    job_id    TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    at_ms     INTEGER NOT NULL,
    body_json TEXT NOT NULL,
    PRIMARY KEY (kind, job_id, seq)
) STRICT;

INSERT INTO events (kind, job_id, seq, at_ms, body_json)
    SELECT 'attempt', attempt_id, seq, at_ms, body_json FROM attempt_events;
INSERT INTO events (kind, job_id, seq, at_ms, body_json)
    SELECT 'run', run_id, seq, at_ms, body_json FROM run_events;
DROP TABLE attempt_events;
DROP TABLE run_events;

-- A job's events go with it (what the two tables' foreign keys did).
CREATE TRIGGER attempts_forget_events AFTER DELETE ON attempts BEGIN
    DELETE FROM events WHERE kind = 'attempt' AND job_id = OLD.id;
END;
CREATE TRIGGER runs_forget_events AFTER DELETE ON runs BEGIN
    DELETE FROM events WHERE kind = 'run' AND job_id = OLD.id;
END;
