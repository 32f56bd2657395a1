DROP TABLE audit_checkpoints;
