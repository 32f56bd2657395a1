-- Sign-on that cannot be abused (issue 31): failed sign-ons are counted per person and place
-- (the registered terminal whose credential a try carried, 'terminal:SITE/TERMINAL', or else
-- the client's address, 'address:IP'), so an outsider without a terminal's credential locks a
-- person only at the outsider's own address. A try is counted before its secret is checked
-- (the row held), so tries made at once are numbered, never judged on one stale count.
CREATE TABLE sign_on_failures (
    principal_id TEXT NOT NULL REFERENCES principals (id),
    place TEXT NOT NULL,
    failures INTEGER NOT NULL CHECK (failures >= 0),
    locked_until BIGINT,
    PRIMARY KEY (principal_id, place)
);
-- The person-wide count and lock it replaces.
ALTER TABLE principals DROP COLUMN failed_signons;
ALTER TABLE principals DROP COLUMN locked_until;
