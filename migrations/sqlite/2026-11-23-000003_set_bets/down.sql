DROP TABLE special3_approvals;
DROP TABLE set_bet_tickets;
DROP TABLE set_bets;
