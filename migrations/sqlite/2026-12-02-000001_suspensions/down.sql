DROP TABLE suspensions;
