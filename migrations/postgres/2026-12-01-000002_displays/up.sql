-- Issue 31: registered displays. A venue's board holds its own credential (a token kept in its
-- URL or its browser's storage), which gives it an event stream outside the caps that
-- anonymous streams share, and nothing else. Only the credential's SHA-256 is stored.
CREATE TABLE displays (
    site TEXT NOT NULL,
    display TEXT NOT NULL,
    credential_hash TEXT NOT NULL,
    registered_at BIGINT NOT NULL,
    -- When the credential in force was made (at registration, or at the last rotation).
    credential_at BIGINT NOT NULL,
    -- A disabled display's credential is refused; a rotation makes it a new one and enables it.
    disabled BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (site, display)
);
CREATE UNIQUE INDEX displays_credential ON displays (credential_hash);
