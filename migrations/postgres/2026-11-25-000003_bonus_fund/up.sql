-- The bonus fund (rule 13.2; INTERPRETATION, "The bonus fund"): unclaimed prizes moved "to fund
-- bonus prizes" add to a balance; bonus prizes marked as funded by it draw on it when a game
-- that pays them settles. The balance is the sum of the movements: credits only raise it, and
-- only settlement (one game at a time) draws on it, so it never goes below 0.
ALTER TABLE bonus_prizes ADD COLUMN funded_by_bonus_fund BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE bonus_fund_movements (
    id BIGSERIAL PRIMARY KEY,
    cents BIGINT NOT NULL,                   -- in (> 0) or out (< 0)
    unclaimed_movement BIGINT REFERENCES unclaimed_movements (id),  -- the prizes moved in
    game BIGINT REFERENCES games (number),   -- the game whose funded bonuses drew on it
    recorded_at BIGINT NOT NULL
);
