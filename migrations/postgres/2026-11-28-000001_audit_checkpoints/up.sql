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

-- Append-only, as the trail itself. A role that owns the table or is a superuser can still
-- disable triggers (session_replication_role): docs/deployment.md names the role to run as.
CREATE FUNCTION audit_checkpoints_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit checkpoints are append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_checkpoints_no_change BEFORE UPDATE OR DELETE ON audit_checkpoints
    FOR EACH ROW EXECUTE FUNCTION audit_checkpoints_append_only();
CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION audit_checkpoints_append_only();
