-- The live liability's catch-up (issue 18) reads the tickets issued since it last looked.
CREATE INDEX tickets_issued ON tickets (issued_at, serial);
