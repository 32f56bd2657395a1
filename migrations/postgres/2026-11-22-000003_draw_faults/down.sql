DROP TABLE device_holds;
DROP TABLE draw_corrections;
DROP TABLE voided_balls;
DROP TABLE draw_faults;
ALTER TABLE drawn_numbers DROP COLUMN entered_by;
ALTER TABLE games DROP COLUMN draw_mode;
ALTER TABLE games DROP COLUMN draw_attempt;
