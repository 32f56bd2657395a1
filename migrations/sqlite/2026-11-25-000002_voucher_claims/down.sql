ALTER TABLE claims DROP COLUMN approved_voucher;
ALTER TABLE claims DROP COLUMN voucher_amount_cents;
ALTER TABLE claims DROP COLUMN voucher_code;
