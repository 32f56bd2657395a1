ALTER TABLE tickets DROP COLUMN entry_form_sha256;
