DROP TABLE ticket_refunds;
DROP TABLE game_invalidations;
