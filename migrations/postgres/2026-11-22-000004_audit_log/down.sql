DROP TABLE audit_head;
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only();
