ALTER TABLE bonus_prizes DROP COLUMN withdrawal_reason;
ALTER TABLE set_bets DROP COLUMN retired_reason;
