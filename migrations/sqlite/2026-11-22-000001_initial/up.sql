-- The official record (rules 4, 5.3, 10.1). Times are microseconds since the Unix epoch (UTC)
-- in BIGINT, the one time type both backends share through diesel's MultiConnection.

CREATE TABLE rule_sets (
    hash TEXT PRIMARY KEY NOT NULL,          -- SHA-256 of the canonical TOML
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE principals (
    id TEXT PRIMARY KEY NOT NULL,
    role TEXT NOT NULL,                      -- writer | supervisor | inspector | auditor | device
    name TEXT NOT NULL,
    site TEXT,
    terminal TEXT,
    token_hash TEXT NOT NULL UNIQUE,         -- SHA-256 of the bearer token; the token is never stored
    created_at BIGINT NOT NULL,
    disabled BOOLEAN NOT NULL DEFAULT FALSE
);

-- Ticket numbers count up per terminal.
CREATE TABLE terminals (
    site TEXT NOT NULL,
    terminal TEXT NOT NULL,
    last_ticket_number BIGINT NOT NULL,
    PRIMARY KEY (site, terminal)
);

CREATE TABLE games (
    number BIGINT PRIMARY KEY NOT NULL,      -- never restarts
    keno_day TEXT NOT NULL,                  -- YYYY-MM-DD, the day the Keno Day started (1(d))
    state TEXT NOT NULL,                     -- open | closed | drawing | drawn | settled | void | invalidated
    source TEXT NOT NULL,                    -- rng | ball_device
    rule_set TEXT NOT NULL REFERENCES rule_sets (hash),
    opened_at BIGINT NOT NULL,
    closes_at BIGINT NOT NULL,
    closed_at BIGINT,
    drawn_at BIGINT,
    settled_at BIGINT
);
CREATE INDEX games_state ON games (state, number);

-- A drawn number exists once its row is committed, and only then is it shown (10.1, 10.3).
CREATE TABLE drawn_numbers (
    game BIGINT NOT NULL REFERENCES games (number),
    position INTEGER NOT NULL,               -- 1..=20, the order drawn
    number INTEGER NOT NULL,
    drawn_at BIGINT NOT NULL,
    PRIMARY KEY (game, position),
    UNIQUE (game, number)
);

-- A player is in a game once the ticket's row is committed (rules 4, 15).
CREATE TABLE tickets (
    serial TEXT PRIMARY KEY NOT NULL,
    principal_id TEXT NOT NULL REFERENCES principals (id),
    request_id TEXT NOT NULL,
    ticket_number BIGINT NOT NULL,
    site TEXT NOT NULL,
    terminal TEXT NOT NULL,
    writer TEXT NOT NULL,
    issued_at BIGINT NOT NULL,
    keno_day TEXT NOT NULL,
    bet_type TEXT NOT NULL,
    schedule TEXT NOT NULL,
    groups_json TEXT NOT NULL,               -- [[6,45],[36,80]]
    combine_json TEXT NOT NULL,              -- [2]
    way_counts_json TEXT NOT NULL,           -- [{"count":1,"spots":4,"plays_as":"standard"}]: WAYS SPOTS
    amount_per_way_cents BIGINT NOT NULL,
    way_count BIGINT NOT NULL,
    first_game BIGINT NOT NULL,
    last_game BIGINT NOT NULL,
    games INTEGER NOT NULL,
    charged_games INTEGER NOT NULL,
    game_cost_cents BIGINT NOT NULL,
    total_cents BIGINT NOT NULL,
    rule_set TEXT NOT NULL REFERENCES rule_sets (hash),
    status TEXT NOT NULL,                    -- active | cancelled | paid
    cancelled_from_game BIGINT,              -- this game and later ones are cancelled (rule 8)
    refund_cents BIGINT NOT NULL DEFAULT 0,
    cancelled_at BIGINT,
    paid_cents BIGINT NOT NULL DEFAULT 0,
    paid_at BIGINT,
    paid_by TEXT,
    pay_method TEXT,
    UNIQUE (principal_id, request_id),
    UNIQUE (site, terminal, ticket_number)
);
CREATE INDEX tickets_games ON tickets (last_game, first_game);
CREATE INDEX tickets_jackpot ON tickets (schedule, last_game);

CREATE TABLE game_settlements (
    game BIGINT PRIMARY KEY NOT NULL REFERENCES games (number),
    ways BIGINT NOT NULL,
    total_prizes_cents BIGINT NOT NULL,
    major_prizes BIGINT NOT NULL,
    prorated BOOLEAN NOT NULL,
    prorate_before_cents BIGINT NOT NULL,
    prorate_after_cents BIGINT NOT NULL,
    floor_binds_for_all BOOLEAN NOT NULL,
    settled_at BIGINT NOT NULL
);

-- Each jackpot pool in each settled game (rules 7.2, 7.3, 12.6).
CREATE TABLE jackpot_pools (
    game BIGINT NOT NULL REFERENCES games (number),
    spots INTEGER NOT NULL,
    carried_in_cents BIGINT NOT NULL,
    contributions_cents BIGINT NOT NULL,
    pool_cents BIGINT NOT NULL,
    winners BIGINT NOT NULL,
    paid_cents BIGINT NOT NULL,
    breakage_cents BIGINT NOT NULL,
    next_pool_cents BIGINT NOT NULL,
    PRIMARY KEY (game, spots)
);

-- What each ticket won in each game it won something in. These two tables have no foreign
-- keys: settlement writes tens of thousands of rows at once from tickets it has just read in the
-- same transaction, and PostgreSQL would check each key row by row (doubling the time to settle
-- a full game). The audit checks them.
CREATE TABLE ticket_results (
    serial TEXT NOT NULL,
    game BIGINT NOT NULL,
    prize_cents BIGINT NOT NULL,
    major BOOLEAN NOT NULL,                  -- includes a major prize: paid by cheque (12.2)
    PRIMARY KEY (serial, game)
);

-- Ways whose prize is not the plain schedule amount: major prizes (pro-rated or not, 12.3) and
-- jackpot wins (12.6). Minor prizes are never adjusted and are recomputed from the ticket.
CREATE TABLE way_results (
    serial TEXT NOT NULL,
    game BIGINT NOT NULL,
    way_index INTEGER NOT NULL,
    catch INTEGER NOT NULL,
    prize_cents BIGINT NOT NULL,
    prorated BOOLEAN NOT NULL,
    jackpot BOOLEAN NOT NULL,
    PRIMARY KEY (serial, game, way_index)
);
