-- Issue 22: the server itself invalidates a game left open under a clock ahead of time (its
-- Keno Day not yet begun), by the rule in docs/deployment.md: no person's id is its to record,
-- so `principal_id` is NULL for the server's own act.
ALTER TABLE game_invalidations ALTER COLUMN principal_id DROP NOT NULL;
