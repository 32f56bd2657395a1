-- Issue 33: suspension, a state of the whole system that survives a restart. While one is in
-- force nothing that moves money or the game happens; a supervisor and an inspector each turn
-- a key, with a note, to resume. A restore names the checkpoints it lost (lost_from..lost_to).
CREATE TABLE suspensions (
    id INTEGER PRIMARY KEY NOT NULL,
    cause TEXT NOT NULL,                     -- restore | trail | software | rule_set | rng | undrawn_game
    detail TEXT NOT NULL,
    began_at BIGINT NOT NULL,
    instance TEXT NOT NULL,
    state TEXT NOT NULL,                     -- in_force | resumed
    lost_from BIGINT,
    lost_to BIGINT,
    supervisor_id TEXT REFERENCES principals (id),
    supervisor_at BIGINT,
    supervisor_note TEXT,
    inspector_id TEXT REFERENCES principals (id),
    inspector_at BIGINT,
    inspector_note TEXT,
    resumed_at BIGINT
);
CREATE INDEX suspensions_state ON suspensions (state);
