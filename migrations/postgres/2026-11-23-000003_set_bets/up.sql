-- Set bets (rule 6.3(h)) and the regulator's approval of Special 3 (rule 18.4), issue 8.

-- The catalogue of set bets: way tickets chosen in advance, kept for ever. A retired set is no
-- longer sold; the tickets sold from it keep naming it.
CREATE TABLE set_bets (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT,
    groups_json TEXT NOT NULL,               -- [[1, 2, 3], [11, 12, 13]]: as a way ticket's
    combine_json TEXT NOT NULL,              -- [2]: how many groups each way combines
    amount_per_way_cents BIGINT NOT NULL,    -- the amount suggested to the player
    created_by TEXT NOT NULL REFERENCES principals (id),
    created_at BIGINT NOT NULL,
    retired_at BIGINT,
    retired_by TEXT REFERENCES principals (id)
);
-- One set on sale under a name (a retired set's name can be used again).
CREATE UNIQUE INDEX set_bets_name_on_sale ON set_bets (LOWER(name)) WHERE retired_at IS NULL;

-- Which set a ticket was sold from, and how: `fixed` plays the catalogue's numbers, `random`
-- numbers of the same shape picked by the server. The numbers played are the ticket's own
-- groups, so settling or reprinting it needs nothing from the catalogue. (A table of its own:
-- the tickets row stays as narrow as every other sale needs.)
CREATE TABLE set_bet_tickets (
    serial TEXT PRIMARY KEY NOT NULL REFERENCES tickets (serial),
    set_bet_id BIGINT NOT NULL REFERENCES set_bets (id),
    mode TEXT NOT NULL                       -- fixed | random
);
CREATE INDEX set_bet_tickets_set ON set_bet_tickets (set_bet_id);

-- The regulator's approval of Special 3, as an inspector records it: Special 3 sells only while
-- one is in force (recorded, not withdrawn, not expired) for the table in force, identified by
-- the SHA-256 of its prizes (a changed table needs approving again).
CREATE TABLE special3_approvals (
    id BIGSERIAL PRIMARY KEY,
    reference TEXT NOT NULL,                 -- the regulator's letter or decision
    approved_by TEXT NOT NULL,               -- who at the regulator approved it
    approved_at BIGINT NOT NULL,             -- when they did
    expires_at BIGINT,                       -- no longer in force from then
    note TEXT,
    schedule_digest TEXT NOT NULL,           -- the Special 3 table approved
    rule_set TEXT NOT NULL REFERENCES rule_sets (hash),
    recorded_by TEXT NOT NULL REFERENCES principals (id),
    recorded_at BIGINT NOT NULL,
    withdrawn_at BIGINT,
    withdrawn_by TEXT REFERENCES principals (id),
    withdrawal_reason TEXT
);
CREATE INDEX special3_approvals_in_force ON special3_approvals (schedule_digest) WHERE withdrawn_at IS NULL;
