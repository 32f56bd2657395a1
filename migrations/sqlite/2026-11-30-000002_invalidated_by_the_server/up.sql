-- Issue 22: the server itself invalidates a game left open under a clock ahead of time (its
-- Keno Day not yet begun), by the rule in docs/deployment.md: no person's id is its to record,
-- so `principal_id` is NULL for the server's own act. SQLite changes a column's NOT NULL only
-- by rebuilding the table (nothing refers to it).
CREATE TABLE game_invalidations_new (
    game BIGINT PRIMARY KEY NOT NULL REFERENCES games (number),
    reason TEXT NOT NULL,
    principal_id TEXT REFERENCES principals (id),   -- NULL: the server, by the clock's rule
    invalidated_at BIGINT NOT NULL
);
INSERT INTO game_invalidations_new (game, reason, principal_id, invalidated_at)
    SELECT game, reason, principal_id, invalidated_at FROM game_invalidations;
DROP TABLE game_invalidations;
ALTER TABLE game_invalidations_new RENAME TO game_invalidations;
