DROP INDEX tickets_cancelled_at;
DROP INDEX tickets_paid_at;
ALTER TABLE tickets DROP COLUMN cancelled_by;
