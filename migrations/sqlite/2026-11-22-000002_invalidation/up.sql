-- Invalidated games (rule 17.3, general rules 18): who, when, why.
CREATE TABLE game_invalidations (
    game BIGINT PRIMARY KEY NOT NULL REFERENCES games (number),
    reason TEXT NOT NULL,
    principal_id TEXT NOT NULL REFERENCES principals (id),
    invalidated_at BIGINT NOT NULL
);

-- The wager refunded to each ticket for each invalidated game it covered (general rule 18.2).
CREATE TABLE ticket_refunds (
    serial TEXT NOT NULL REFERENCES tickets (serial),
    game BIGINT NOT NULL REFERENCES games (number),
    refund_cents BIGINT NOT NULL,
    PRIMARY KEY (serial, game)
);
