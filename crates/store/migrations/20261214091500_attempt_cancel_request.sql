-- A cancel asked for by a process that does not own the attempt (the CLI's `cancel` next to the
-- app, or the app next to a detached `run`): the time it was asked. The owner polls its row with
-- its heartbeat and cancels its own work when it sees one. NULL: nobody asked. Cleared when an
-- attempt is recovered (a new run of it is a new decision).
ALTER TABLE attempts ADD COLUMN cancel_requested_ms INTEGER;
