CREATE TABLE game_invalidations_old (
    game BIGINT PRIMARY KEY NOT NULL REFERENCES games (number),
    reason TEXT NOT NULL,
    principal_id TEXT NOT NULL REFERENCES principals (id),
    invalidated_at BIGINT NOT NULL
);
-- The server's own invalidations have no person to name: they cannot go back.
INSERT INTO game_invalidations_old (game, reason, principal_id, invalidated_at)
    SELECT game, reason, principal_id, invalidated_at FROM game_invalidations
    WHERE principal_id IS NOT NULL;
DROP TABLE game_invalidations;
ALTER TABLE game_invalidations_old RENAME TO game_invalidations;
