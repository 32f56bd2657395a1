-- Which server instance draws and settles (issue 9): one row, its epoch raised at every change
-- of leader. Every write of the leader checks its epoch in the same transaction, so an old
-- leader that was paused cannot write once another has taken over (fencing).
CREATE TABLE leadership (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    epoch BIGINT NOT NULL,
    holder TEXT NOT NULL,
    lease_until BIGINT NOT NULL,
    acquired_at BIGINT NOT NULL
);
INSERT INTO leadership (id, epoch, holder, lease_until, acquired_at) VALUES (1, 0, '', 0, 0);
