ALTER TABLE audit_checkpoints DROP COLUMN heads;
CREATE TABLE audit_head (
    id INTEGER PRIMARY KEY NOT NULL,
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL,
    started_at BIGINT NOT NULL
);
INSERT INTO audit_head (id, seq, hash, started_at)
SELECT 1, seq, hash, 0 FROM audit_chains WHERE chain = 0;
DROP TABLE audit_chains;
ALTER TABLE audit_log DROP COLUMN chain;
