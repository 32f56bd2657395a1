DROP TABLE bonus_fund_movements;
ALTER TABLE bonus_prizes DROP COLUMN funded_by_bonus_fund;
