-- Routing: past picks (so the Route page can show them with rating controls) and ratings
-- per (model, category) that the router blends with benchmark scores.
CREATE TABLE route_picks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    task       TEXT NOT NULL,
    category   TEXT NOT NULL,
    budget     TEXT NOT NULL,
    model_id   TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX route_picks_created ON route_picks (created_at DESC, id DESC);

-- One row per rating. A pick has at most one rating (re-rating replaces it); manual and run
-- ratings accumulate.
CREATE TABLE ratings (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    model_id   TEXT NOT NULL,
    category   TEXT NOT NULL,
    rating     INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    source     TEXT NOT NULL CHECK (source IN ('manual', 'pick', 'run')),
    pick_id    INTEGER REFERENCES route_picks (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    CHECK ((source = 'pick') = (pick_id IS NOT NULL))
);

CREATE UNIQUE INDEX ratings_one_per_pick ON ratings (pick_id) WHERE pick_id IS NOT NULL;
CREATE INDEX ratings_model_category ON ratings (model_id, category);
