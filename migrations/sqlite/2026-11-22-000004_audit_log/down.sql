DROP TABLE audit_head;
DROP TABLE audit_log;
