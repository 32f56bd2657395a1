ALTER TABLE principals ADD COLUMN failed_signons INTEGER NOT NULL DEFAULT 0;
ALTER TABLE principals ADD COLUMN locked_until BIGINT;
DROP TABLE sign_on_failures;
