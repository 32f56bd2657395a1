ALTER TABLE shifts DROP COLUMN sign_off_required;
