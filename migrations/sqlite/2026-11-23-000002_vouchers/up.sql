-- Vouchers (issue 8; rules 1(n), 6.1, 13.1, 13.3) and what each sale was paid with.

-- A voucher: a cash deposit for future gaming, a winning ticket paid as a voucher, or the change
-- from a sale paid with a winning ticket. The code is the bearer's proof: 21 random digits from
-- the OS CSPRNG and a Luhn check digit, never sequential. balance = amount - what sales spent
-- - what was cashed out; the checks keep it between 0 and the amount whatever a bug or a race
-- would do.
CREATE TABLE vouchers (
    code TEXT PRIMARY KEY NOT NULL,
    principal_id TEXT NOT NULL REFERENCES principals (id),  -- the writer who issued it
    request_id TEXT,                         -- the issue's request id (NULL for change)
    site TEXT NOT NULL,
    terminal TEXT NOT NULL,
    writer TEXT NOT NULL,
    issued_at BIGINT NOT NULL,
    keno_day TEXT NOT NULL,                  -- usable at a writer terminal for 12 months after (13.1)
    source TEXT NOT NULL,                    -- deposit | ticket | change
    ticket TEXT,                             -- ticket: the winning ticket it paid; change: the ticket sold
    amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
    balance_cents BIGINT NOT NULL CHECK (balance_cents >= 0 AND balance_cents <= amount_cents),
    status TEXT NOT NULL,                    -- active | spent | cashed
    cashed_cents BIGINT NOT NULL DEFAULT 0 CHECK (cashed_cents >= 0),
    cashed_at BIGINT,
    cashed_by TEXT,
    UNIQUE (principal_id, request_id)
);
CREATE INDEX vouchers_ticket ON vouchers (ticket) WHERE ticket IS NOT NULL;

-- What paid each sale besides cash (rule 6.1), in the order tendered: a voucher's spend, or a
-- winning ticket paid by tender (its winnings beyond the sale are the change voucher's).
CREATE TABLE sale_tenders (
    serial TEXT NOT NULL REFERENCES tickets (serial),  -- the ticket sold
    position INTEGER NOT NULL,               -- 1, 2, ... as tendered
    kind TEXT NOT NULL,                      -- voucher | ticket
    reference TEXT NOT NULL,                 -- the voucher's code or the winning ticket's serial
    covered_cents BIGINT NOT NULL CHECK (covered_cents > 0),
    remaining_cents BIGINT NOT NULL,         -- voucher: its balance after this sale; ticket: 0
    change_cents BIGINT NOT NULL,            -- ticket: its winnings beyond the sale
    spent_at BIGINT NOT NULL,
    PRIMARY KEY (serial, position)
);
CREATE INDEX sale_tenders_reference ON sale_tenders (reference, kind);
-- A winning ticket is tendered once.
CREATE UNIQUE INDEX sale_tenders_ticket_once ON sale_tenders (reference) WHERE kind = 'ticket';
