-- The audit trail as several hash chains (issue 21): one head row that every append locked
-- made every sale writer, and every instance, wait in turn. An append now takes whichever
-- chain is free (FOR UPDATE SKIP LOCKED) and numbers its entries from a sequence; each entry
-- links to the one before in its own chain. A signed checkpoint folds every chain's head into
-- one (audit_checkpoints.heads), so `audit verify` still proves that nothing was changed,
-- removed or inserted. The trail so far is chain 0.
ALTER TABLE audit_log ADD COLUMN chain INTEGER NOT NULL DEFAULT 0;

CREATE TABLE audit_chains (
    chain INTEGER PRIMARY KEY NOT NULL,
    seq BIGINT NOT NULL,                    -- the chain's last entry, 0 before its first
    hash TEXT NOT NULL                      -- that entry's hash
);
INSERT INTO audit_chains (chain, seq, hash) SELECT 0, seq, hash FROM audit_head;
INSERT INTO audit_chains (chain, seq, hash)
SELECT c, 0, '0000000000000000000000000000000000000000000000000000000000000000'
FROM generate_series(1, 15) AS c;
DROP TABLE audit_head;

-- Entries are numbered in the order their appends ran; a number taken by a transaction that
-- rolled back is never used, so numbers may skip (the chains' links, not the numbers, prove
-- that nothing was removed).
CREATE SEQUENCE audit_log_seq;
SELECT setval('audit_log_seq', COALESCE((SELECT MAX(seq) FROM audit_log), 0) + 1, false);

-- Each checkpoint signs every chain's head: "chain:seq:hash;..." (NULL for the checkpoints of
-- one chain made before, which sign `seq` and `hash` of chain 0).
ALTER TABLE audit_checkpoints ADD COLUMN heads TEXT;
