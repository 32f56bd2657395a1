-- Unclaimed Prize Claim Forms (rules 13.1, 13.4, 13.5, 14; Diagram E): a claim for an old, lost
-- or mutilated ticket, recorded by a writer or supervisor, decided by an inspector, paid by
-- cheque once.
CREATE TABLE claims (
    id BIGSERIAL PRIMARY KEY,
    reason TEXT NOT NULL,                    -- old | lost | mutilated
    claimant_name TEXT NOT NULL,
    postal_address TEXT NOT NULL,
    phone TEXT NOT NULL,
    purchase_place TEXT NOT NULL,            -- where the ticket was bought
    purchase_date TEXT NOT NULL,             -- YYYY-MM-DD, as the claimant remembers it
    approx_game BIGINT,
    games INTEGER,                           -- how many games the ticket was for
    other_details TEXT NOT NULL,
    serial TEXT,                             -- when the claimant knows it
    state TEXT NOT NULL,                     -- submitted | approved | rejected | paid
    recorded_by TEXT NOT NULL REFERENCES principals (id),
    recorded_at BIGINT NOT NULL,
    ticket_serial TEXT REFERENCES tickets (serial),  -- the ticket the inspector chose
    decided_by TEXT REFERENCES principals (id),
    decided_at BIGINT,
    decision_reason TEXT,
    paid_cents BIGINT,
    paid_by TEXT REFERENCES principals (id),
    paid_at BIGINT,
    cheque_reference TEXT
);
CREATE INDEX claims_state ON claims (state, recorded_at);

-- Prizes unclaimed 12 months after their win, moved by a supervisor's recorded decision to a
-- return-to-player use (rule 13.2). The tickets stay payable by claim (13.4).
CREATE TABLE unclaimed_movements (
    id BIGSERIAL PRIMARY KEY,
    destination TEXT NOT NULL,               -- jackpot_6 | jackpot_8 | bonus_fund
    won_before BIGINT NOT NULL,              -- wins recorded before this moment (12 months back)
    tickets BIGINT NOT NULL,
    total_cents BIGINT NOT NULL,
    reason TEXT NOT NULL,
    decided_by TEXT NOT NULL REFERENCES principals (id),
    decided_at BIGINT NOT NULL
);

CREATE TABLE unclaimed_prizes_moved (
    serial TEXT PRIMARY KEY NOT NULL REFERENCES tickets (serial),  -- a prize moves once
    movement_id BIGINT NOT NULL REFERENCES unclaimed_movements (id),
    prize_cents BIGINT NOT NULL
);

-- Money added to a jackpot pool from outside its wagers (13.2): carried into the next game
-- settled, which records it.
CREATE TABLE jackpot_additions (
    id BIGSERIAL PRIMARY KEY,
    spots INTEGER NOT NULL,
    cents BIGINT NOT NULL,
    movement_id BIGINT REFERENCES unclaimed_movements (id),
    added_at BIGINT NOT NULL,
    applied_game BIGINT REFERENCES games (number)
);
