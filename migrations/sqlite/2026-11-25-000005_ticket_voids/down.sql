DROP TABLE ticket_voids;
