-- Issue 22: a request id is safe to send again with the same request, and refused with
-- another. A sale and a voucher keep the digest of the request that made them beside their
-- request id (NULL on rows made before); a payment, a cancellation, a cash-out and a claim's
-- payment keep their request id, digest and answer here, written in the act's transaction.
ALTER TABLE tickets ADD COLUMN request_digest TEXT;
ALTER TABLE vouchers ADD COLUMN request_digest TEXT;
CREATE TABLE request_outcomes (
    principal_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    act TEXT NOT NULL,            -- pay, cancel, cash_out, claim_pay
    subject TEXT NOT NULL,        -- the ticket's serial, the voucher's code, the claim's id
    digest TEXT NOT NULL,         -- sha256 of the act, its subject and its body
    outcome_json TEXT NOT NULL,   -- the answer given, given again to a retry
    done_at BIGINT NOT NULL,
    PRIMARY KEY (principal_id, request_id)
);
