-- Old vouchers are claimable (rules 13.1, 13.3, 13.5): an Unclaimed Prize Claim Form may name a
-- voucher (its code, or a lost one's date and amount); the inspector approves it against the
-- voucher, whose balance is then paid by cheque, once.
ALTER TABLE claims ADD COLUMN voucher_code TEXT;
ALTER TABLE claims ADD COLUMN voucher_amount_cents BIGINT;
ALTER TABLE claims ADD COLUMN approved_voucher TEXT REFERENCES vouchers (code);
