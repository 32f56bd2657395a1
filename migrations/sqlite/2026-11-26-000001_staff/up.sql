-- Running the room (issue 17): people sign on; terminals are registered; shifts balance a
-- drawer; a supervisor's approval at the moment of a ticket action is kept; a hand-pay records
-- its claimant.
--
-- A person is a principal of kind 'staff': a staff ID (the principal's id, typed at sign-on), a
-- secret stored as an argon2id hash (a PIN for a writer; a password for the others, who also
-- give a TOTP code from totp_secret), failed sign-ons counted and a lock. A staff row's
-- token_hash is that of a random token made and thrown away: a person holds no bearer token,
-- only the sessions below. Rows of kind 'token' are the bearer tokens of `principal add`,
-- deprecated, kept working for one release.
ALTER TABLE principals ADD COLUMN kind TEXT NOT NULL DEFAULT 'token';
ALTER TABLE principals ADD COLUMN secret_hash TEXT;
ALTER TABLE principals ADD COLUMN totp_secret TEXT;
ALTER TABLE principals ADD COLUMN failed_signons INTEGER NOT NULL DEFAULT 0;
ALTER TABLE principals ADD COLUMN locked_until BIGINT;
-- The TOTP time step last accepted: a code is good once (RFC 6238, 5.2).
ALTER TABLE principals ADD COLUMN totp_last_step BIGINT;
-- One active staff ID per person name and role (Nevada MICS: one ID per person).
CREATE UNIQUE INDEX principals_one_active_staff ON principals (name, role)
    WHERE kind = 'staff' AND disabled = FALSE;

-- A registered terminal holds its own credential (a token kept in its config), which lets a
-- writer sign on there (rule 5.1) and does nothing else.
ALTER TABLE terminals ADD COLUMN credential_hash TEXT;
ALTER TABLE terminals ADD COLUMN registered_at BIGINT;
CREATE UNIQUE INDEX terminals_credential ON terminals (credential_hash);

-- A person's session: bound to the person, and for a writer to the terminal and site signed
-- on at. It ends at sign-off, after inactivity, at the end of the Keno Day (expires_at), when
-- the person is disabled, or when the person signs on elsewhere.
CREATE TABLE staff_sessions (
    id TEXT PRIMARY KEY NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    principal_id TEXT NOT NULL REFERENCES principals (id),
    site TEXT,
    terminal TEXT,
    started_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    ended_at BIGINT,
    end_reason TEXT,
    CHECK ((ended_at IS NULL) = (end_reason IS NULL))
);
CREATE INDEX staff_sessions_open ON staff_sessions (principal_id) WHERE ended_at IS NULL;

-- A writer's shift at a terminal's drawer: opened with a float, closed with the cash counted.
-- The cash it should hold is worked out from the records of the writer at that terminal
-- between opened_at and closed_at; expected_cents keeps what it was at the close.
CREATE TABLE shifts (
    id INTEGER PRIMARY KEY NOT NULL,
    principal_id TEXT NOT NULL REFERENCES principals (id),
    site TEXT NOT NULL,
    terminal TEXT NOT NULL,
    keno_day TEXT NOT NULL,
    opened_at BIGINT NOT NULL,
    float_cents BIGINT NOT NULL CHECK (float_cents >= 0),
    closed_at BIGINT,
    counted_cents BIGINT,
    expected_cents BIGINT,
    over_short_cents BIGINT,
    signed_off_by TEXT REFERENCES principals (id),
    signed_off_at BIGINT,
    sign_off_reason TEXT,
    CHECK ((closed_at IS NULL) = (counted_cents IS NULL)),
    CHECK ((closed_at IS NULL) = (expected_cents IS NULL)),
    CHECK ((closed_at IS NULL) = (over_short_cents IS NULL))
);
-- One open shift per drawer and per writer.
CREATE UNIQUE INDEX shifts_open_terminal ON shifts (site, terminal) WHERE closed_at IS NULL;
CREATE UNIQUE INDEX shifts_open_writer ON shifts (principal_id) WHERE closed_at IS NULL;

-- A supervisor's approval, given by signing on at that moment, for one writer to do one thing
-- to one ticket: handle another site's ticket, or pay above the writer's payout authority.
-- id is the SHA-256 of the grant the writer's request carries; it is used once.
CREATE TABLE overrides (
    id TEXT PRIMARY KEY NOT NULL,
    action TEXT NOT NULL,
    serial TEXT NOT NULL,
    writer_id TEXT NOT NULL REFERENCES principals (id),
    site TEXT,
    terminal TEXT,
    supervisor_id TEXT NOT NULL REFERENCES principals (id),
    reason TEXT NOT NULL,
    granted_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

-- A major prize paid by hand: who took it and the identity document shown; a cheque's number.
CREATE TABLE hand_pays (
    serial TEXT PRIMARY KEY NOT NULL REFERENCES tickets (serial),
    claimant_name TEXT NOT NULL,
    id_kind TEXT NOT NULL,
    id_number TEXT NOT NULL,
    cheque_number TEXT,
    approved_by TEXT REFERENCES principals (id),
    recorded_at BIGINT NOT NULL
);
