-- Issue 36 (rule 5.4): a sale read from a scanned entry form keeps the SHA-256 of the form's
-- image, so the form the writer retains can be matched to its ticket (none for a keyed sale).
ALTER TABLE tickets ADD COLUMN entry_form_sha256 TEXT;
