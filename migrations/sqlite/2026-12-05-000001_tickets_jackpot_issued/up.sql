-- The jackpot announcer's tally (issue 37) reads the jackpot tickets of the games not yet
-- settled issued since it last looked: with `issued_at` in the index they are told apart from
-- the others within it, and only theirs are read from the table. The pools read whole
-- (schedule and last game) use the index as before.
DROP INDEX tickets_jackpot;
CREATE INDEX tickets_jackpot ON tickets (schedule, last_game, issued_at);
