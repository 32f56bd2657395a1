-- Signed checkpoints of the audit trail (issue 20): the trail's head (its last entry and that
-- entry's hash) signed with the server's Ed25519 key, a key kept outside the database. Each is
-- also appended to a checkpoint file outside the database; `audit verify --public-key` proves
-- the trail against them, so that a consistent rewrite of the chain, or its tail cut with the
-- head moved back, differs from what was signed.
CREATE TABLE audit_checkpoints (
    n BIGINT PRIMARY KEY NOT NULL,          -- 1, 2, 3... with no gaps
    seq BIGINT NOT NULL,                    -- the trail's last entry when it was made
    hash TEXT NOT NULL,                     -- that entry's hash
    made_at BIGINT NOT NULL,
    keno_day TEXT NOT NULL,                 -- the Keno Day it belongs to
    instance TEXT NOT NULL,                 -- the server instance that made it
    reason TEXT NOT NULL,                   -- interval, settlement, keno_day_end, start
    prev TEXT NOT NULL,                     -- SHA-256 of the checkpoint before's signature
    public_key TEXT NOT NULL,
    signature TEXT NOT NULL
);

-- Append-only, as the trail itself.
CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
BEGIN SELECT RAISE(ABORT, 'the audit checkpoints are append-only'); END;
CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
BEGIN SELECT RAISE(ABORT, 'the audit checkpoints are append-only'); END;
