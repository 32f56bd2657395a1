DROP INDEX tickets_jackpot;
CREATE INDEX tickets_jackpot ON tickets (schedule, last_game);
