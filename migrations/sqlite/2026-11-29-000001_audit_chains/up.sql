-- The audit trail as several hash chains (issue 21): see the PostgreSQL migration. SQLite has
-- one writer at a time, so its appends all use chain 0 and number entries one after the other;
-- the table and column are the same on both backends so that one verify reads both.
ALTER TABLE audit_log ADD COLUMN chain INTEGER NOT NULL DEFAULT 0;

CREATE TABLE audit_chains (
    chain INTEGER PRIMARY KEY NOT NULL,
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL
);
INSERT INTO audit_chains (chain, seq, hash) SELECT 0, seq, hash FROM audit_head;
DROP TABLE audit_head;

ALTER TABLE audit_checkpoints ADD COLUMN heads TEXT;
