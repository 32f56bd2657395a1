-- Cash, and cheque for major prizes only (rule 12.2): a ticket paid at a terminal is paid in
-- parts, its minor wins in cash and its major prizes by cheque or in cash as the payer chooses.
-- Each part is kept; a way's stored result says whether it is a major prize (rows stored before
-- were all major prizes).
ALTER TABLE way_results ADD COLUMN major BOOLEAN NOT NULL DEFAULT TRUE;
CREATE TABLE payment_parts (
    serial TEXT NOT NULL REFERENCES tickets (serial),
    part INTEGER NOT NULL,                   -- 1, 2, ... in the order paid
    method TEXT NOT NULL,                    -- cash | cheque
    cents BIGINT NOT NULL,
    PRIMARY KEY (serial, part)
);
