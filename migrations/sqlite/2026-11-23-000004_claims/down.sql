DROP TABLE jackpot_additions;
DROP TABLE unclaimed_prizes_moved;
DROP TABLE unclaimed_movements;
DROP TABLE claims;
