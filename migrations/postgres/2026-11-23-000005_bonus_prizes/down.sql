ALTER TABLE game_settlements DROP COLUMN bonus_cents;
DROP TABLE bonus_results;
DROP TABLE game_bonus_offers;
DROP TABLE bonus_prizes;
