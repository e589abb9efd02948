-- How an attempt's worker and verification were confined (`ConfinementReport` as JSON: mode,
-- network, allowed origins, writable paths, refused writes and connections, undone repository
-- changes). NULL for attempts that ran before confinement existed, or have not started.
ALTER TABLE attempts ADD COLUMN confinement_json TEXT;
