-- Void wagers of a cheating player (rule 17.2; general rules 17.3, 18.2): the ticket named by a
-- supervisor, why, the person to exclude if any, and the stake refunded or forfeited. A ticket
-- voided before a game settles takes no part in it; one voided after keeps its results, its
-- unpaid prizes withheld.
CREATE TABLE ticket_voids (
    serial TEXT PRIMARY KEY NOT NULL REFERENCES tickets (serial),
    reason TEXT NOT NULL,
    excluded_person TEXT,                    -- a description of the person, when excluded
    forfeited BOOLEAN NOT NULL,
    refund_cents BIGINT NOT NULL,
    voided_by TEXT NOT NULL REFERENCES principals (id),
    voided_at BIGINT NOT NULL
);
