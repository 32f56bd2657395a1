-- The draw's irregularities (rule 10): faults, voided balls, corrections, devices out of service.
-- Each is recorded with who, when and why, for an inspector to audit later.

-- A draw attempt ends void (10.2, 10.4(c)) and the game is drawn again: the attempt counts.
-- After a fall-back or stoppage (10.4(b), (d)) the rest of the draw is entered by hand.
ALTER TABLE games ADD COLUMN draw_attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE games ADD COLUMN draw_mode TEXT NOT NULL DEFAULT 'device';   -- rng | device | manual
UPDATE games SET draw_mode = 'rng' WHERE source = 'rng';

-- Who entered each ball: the device, or the supervisor drawing by hand; none for the RNG. (No
-- foreign key: SQLite cannot drop a column that has one, and the audit checks it.)
ALTER TABLE drawn_numbers ADD COLUMN entered_by TEXT;

CREATE TABLE draw_faults (
    id INTEGER PRIMARY KEY NOT NULL,
    game BIGINT NOT NULL REFERENCES games (number),
    attempt INTEGER NOT NULL,
    kind TEXT NOT NULL,                      -- short_of_balls | broken_ball | fall_back | spill | stoppage | no_device
    number INTEGER,                          -- the broken ball
    device_id TEXT REFERENCES principals (id),
    reason TEXT NOT NULL,
    principal_id TEXT NOT NULL REFERENCES principals (id),
    recorded_at BIGINT NOT NULL
);
CREATE INDEX draw_faults_game ON draw_faults (game);

-- Balls taken out of the official record: a whole void attempt, or a broken ball (10.4(a)).
CREATE TABLE voided_balls (
    game BIGINT NOT NULL REFERENCES games (number),
    attempt INTEGER NOT NULL,
    number INTEGER NOT NULL,
    position INTEGER NOT NULL,               -- its place in the attempt when it was voided
    drawn_at BIGINT NOT NULL,
    entered_by TEXT REFERENCES principals (id),
    fault_id BIGINT NOT NULL REFERENCES draw_faults (id),
    PRIMARY KEY (game, attempt, number)
);

-- A mis-transferred number corrected to the ball's (10.1): applied only once a supervisor and
-- an inspector have both approved, and only before the game is settled.
CREATE TABLE draw_corrections (
    id INTEGER PRIMARY KEY NOT NULL,
    game BIGINT NOT NULL REFERENCES games (number),
    attempt INTEGER NOT NULL,
    position INTEGER NOT NULL,
    old_number INTEGER NOT NULL,
    new_number INTEGER NOT NULL,
    reason TEXT NOT NULL,
    state TEXT NOT NULL,                     -- pending | applied | rejected | lapsed
    requested_by TEXT NOT NULL REFERENCES principals (id),
    requested_at BIGINT NOT NULL,
    supervisor_id TEXT REFERENCES principals (id),
    supervisor_at BIGINT,
    inspector_id TEXT REFERENCES principals (id),
    inspector_at BIGINT,
    closed_by TEXT REFERENCES principals (id),
    closed_at BIGINT,
    close_reason TEXT
);
CREATE INDEX draw_corrections_game ON draw_corrections (game, state);

-- A device out of service: after a spill until it is rectified (10.4(c)), after a broken ball
-- until the ball is replaced (10.4(a)); returned once a supervisor and an inspector approve.
CREATE TABLE device_holds (
    id INTEGER PRIMARY KEY NOT NULL,
    device_id TEXT NOT NULL REFERENCES principals (id),
    fault_id BIGINT NOT NULL REFERENCES draw_faults (id),
    blocks_from_game BIGINT NOT NULL,        -- the first game the device may not draw
    opened_at BIGINT NOT NULL,
    supervisor_id TEXT REFERENCES principals (id),
    supervisor_at BIGINT,
    supervisor_note TEXT,
    inspector_id TEXT REFERENCES principals (id),
    inspector_at BIGINT,
    inspector_note TEXT,
    returned_at BIGINT
);
CREATE INDEX device_holds_device ON device_holds (device_id, returned_at);
