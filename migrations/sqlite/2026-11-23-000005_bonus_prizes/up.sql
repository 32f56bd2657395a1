-- Bonus prizes (rule 6.3(e)): an operator-defined set prize for a ticket type and/or value,
-- offered at chosen intervals, paid on top of the schedule, once the regulator's approval is
-- recorded.
CREATE TABLE bonus_prizes (
    id INTEGER PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    bet_type TEXT,                           -- standard | quick_pick | ... ; any when NULL
    spots INTEGER,                           -- a way of this many spots; any when NULL
    min_amount_per_way_cents BIGINT NOT NULL,
    catch INTEGER NOT NULL,                  -- the catch that wins it
    prize_cents BIGINT NOT NULL,             -- per winning way
    every_nth_game BIGINT,                   -- offered in games numbered N, 2N, 3N...
    window_from BIGINT,                      -- or in games opened in this time window
    window_to BIGINT,
    created_by TEXT NOT NULL REFERENCES principals (id),
    created_at BIGINT NOT NULL,
    approval_reference TEXT,                 -- the regulator's approval, recorded by an inspector
    approved_by TEXT REFERENCES principals (id),
    approved_at BIGINT,
    withdrawn_by TEXT REFERENCES principals (id),
    withdrawn_at BIGINT
);

-- The bonuses offered in each game, fixed when the game opens: what the displays announce and
-- what settlement pays.
CREATE TABLE game_bonus_offers (
    game BIGINT NOT NULL REFERENCES games (number),
    bonus_id BIGINT NOT NULL REFERENCES bonus_prizes (id),
    PRIMARY KEY (game, bonus_id)
);

-- Each bonus won: a way of a ticket in a game.
CREATE TABLE bonus_results (
    serial TEXT NOT NULL,
    game BIGINT NOT NULL,
    way_index INTEGER NOT NULL,
    bonus_id BIGINT NOT NULL,
    prize_cents BIGINT NOT NULL,
    PRIMARY KEY (serial, game, way_index, bonus_id)
);

ALTER TABLE game_settlements ADD COLUMN bonus_cents BIGINT NOT NULL DEFAULT 0;
