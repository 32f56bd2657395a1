-- The server's own invalidations have no person to name: they cannot go back.
DELETE FROM game_invalidations WHERE principal_id IS NULL;
ALTER TABLE game_invalidations ALTER COLUMN principal_id SET NOT NULL;
