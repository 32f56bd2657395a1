-- Issue 34 (6): retiring a set bet and withdrawing a bonus prize stop what is sold or offered;
-- each asks why, and keeps the answer with the act (older ones have none).
ALTER TABLE set_bets ADD COLUMN retired_reason TEXT;
ALTER TABLE bonus_prizes ADD COLUMN withdrawal_reason TEXT;
