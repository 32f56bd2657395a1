DROP TABLE payment_parts;
ALTER TABLE way_results DROP COLUMN major;
