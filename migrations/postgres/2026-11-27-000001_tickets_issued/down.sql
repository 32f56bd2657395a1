DROP INDEX tickets_issued;
