-- A refreshed snapshot held back instead of replacing the one in use, because it had zero
-- records or fewer than half of the previous count. One per source: "accept anyway" moves it
-- into source_snapshots; any later refresh attempt of that source replaces or clears it.
CREATE TABLE source_candidates (
    source           TEXT PRIMARY KEY NOT NULL,
    held_at          TEXT NOT NULL,
    records          INTEGER NOT NULL,
    previous_records INTEGER NOT NULL,
    origin           TEXT NOT NULL,
    reason           TEXT NOT NULL,
    snapshot         TEXT NOT NULL
);
