-- The tree object of an attempt's captured change (`git write-tree` of its private index), so a
-- revision can be diffed against the attempt it revises. NULL for attempts captured before
-- this column existed, or not captured yet.
ALTER TABLE attempts ADD COLUMN diff_tree TEXT;
