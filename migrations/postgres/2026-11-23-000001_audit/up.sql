-- What the auditors' tools (`keno-server audit`) need from the record.

-- Who cancelled a ticket (rule 8): the daily exceptions name who did each act. (No foreign
-- key: SQLite cannot drop a column that has one; the audit resolves it against principals.)
ALTER TABLE tickets ADD COLUMN cancelled_by TEXT;

-- A day's payments and cancellations, found by when they happened. Partial indexes: a sale
-- writes no entry in either, so selling costs nothing more.
CREATE INDEX tickets_paid_at ON tickets (paid_at) WHERE paid_at IS NOT NULL;
CREATE INDEX tickets_cancelled_at ON tickets (cancelled_at) WHERE cancelled_at IS NOT NULL;
