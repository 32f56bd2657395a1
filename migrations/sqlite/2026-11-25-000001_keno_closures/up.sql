-- Keno closed early with notice (rule 16.2, issue 16 item 7): a supervisor schedules today's
-- closure at least the notice period ahead, recording the Government Casino Inspector told of
-- it; it may be withdrawn before it takes effect. No game opens at or after closes_at on its
-- Keno Day. Its state (scheduled, in effect, withdrawn) follows from withdrawn_at and the time.
CREATE TABLE keno_closures (
    id INTEGER PRIMARY KEY NOT NULL,
    keno_day TEXT NOT NULL,                  -- the Keno Day it closes (YYYY-MM-DD)
    closes_at BIGINT NOT NULL,
    inspector_notified TEXT NOT NULL,        -- the inspector told beforehand: name or reference
    reason TEXT NOT NULL,
    scheduled_by TEXT NOT NULL REFERENCES principals (id),
    scheduled_at BIGINT NOT NULL,
    withdrawn_at BIGINT,
    withdrawn_by TEXT REFERENCES principals (id),
    withdrawal_reason TEXT,
    CHECK (closes_at > scheduled_at),
    CHECK ((withdrawn_at IS NULL) = (withdrawn_by IS NULL)),
    CHECK ((withdrawn_at IS NULL) = (withdrawal_reason IS NULL))
);
-- One closure in force per Keno Day: another waits until this one is withdrawn.
CREATE UNIQUE INDEX keno_closures_in_force ON keno_closures (keno_day) WHERE withdrawn_at IS NULL;
