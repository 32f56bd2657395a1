DROP TABLE displays;
