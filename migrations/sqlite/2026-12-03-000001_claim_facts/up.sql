-- Issue 34 (8): a claim for a lost ticket finds its candidates from what a player can tell.
-- The numbers they played and an amount (what they paid, or what they were told they won);
-- and each terminal's venue, by the name players know it by rather than its site number.
ALTER TABLE claims ADD COLUMN numbers TEXT;
ALTER TABLE claims ADD COLUMN amount_cents BIGINT;
ALTER TABLE terminals ADD COLUMN venue TEXT;
