DROP TABLE sale_tenders;
DROP TABLE vouchers;
