ALTER TABLE terminals DROP COLUMN venue;
ALTER TABLE claims DROP COLUMN amount_cents;
ALTER TABLE claims DROP COLUMN numbers;
