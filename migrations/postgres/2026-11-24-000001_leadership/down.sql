DROP TABLE leadership;
