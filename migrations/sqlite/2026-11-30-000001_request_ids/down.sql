DROP TABLE request_outcomes;
ALTER TABLE vouchers DROP COLUMN request_digest;
ALTER TABLE tickets DROP COLUMN request_digest;
