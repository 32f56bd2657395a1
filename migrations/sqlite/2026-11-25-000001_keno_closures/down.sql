DROP TABLE keno_closures;
