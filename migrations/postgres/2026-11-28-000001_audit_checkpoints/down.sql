DROP TABLE audit_checkpoints;
DROP FUNCTION audit_checkpoints_append_only();
