-- Issue 31: a claim keeps the site it was filed at. A writer sees only its own site's claims,
-- and a writer signed on with a session has its site from the session (the terminal signed
-- on at), not from `principals.site`, which is empty for staff. Claims filed before were
-- filed by principals bound to a site: theirs is that one.
ALTER TABLE claims ADD COLUMN site TEXT;
UPDATE claims SET site = (
    SELECT p.site FROM principals p WHERE p.id = claims.recorded_by
);
