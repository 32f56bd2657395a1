-- The tamper-evident audit trail (issue 7; rules 10.1, 13, 17): every record that matters
-- enters this log in the transaction that makes it, each entry chained to the one before by a
-- SHA-256 hash. `keno-server audit verify` recomputes the chain and compares every record with
-- its entry.
CREATE TABLE audit_log (
    seq BIGINT PRIMARY KEY NOT NULL,         -- 1, 2, 3... with no gaps
    recorded_at BIGINT NOT NULL,
    kind TEXT NOT NULL,                      -- ticket_sold, number_drawn, game_settled, ...
    subject TEXT NOT NULL,                   -- the serial, game number, principal id...
    principal_id TEXT,                       -- who, when a person or device did it
    payload TEXT NOT NULL,                   -- the record as JSON
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL                       -- SHA-256 of prev_hash and this entry
);
CREATE INDEX audit_log_subject ON audit_log (kind, subject);

-- The chain's head: one row, locked by every append, so entries are numbered and chained in
-- commit order.
CREATE TABLE audit_head (
    id INTEGER PRIMARY KEY NOT NULL,
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL,
    started_at BIGINT NOT NULL               -- records older than this predate the trail
);
INSERT INTO audit_head (id, seq, hash, started_at)
VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000',
        CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT));

-- Append-only: changing or removing an entry takes dropping these first.
CREATE FUNCTION audit_log_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
