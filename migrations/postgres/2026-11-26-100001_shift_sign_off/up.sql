-- Whether a shift's close found an over/short beyond the tolerance then in force
-- (`--over-short-tolerance`): the decision is the close's, kept with it, so that a later change
-- of the setting neither lets a shift waiting for a supervisor through nor holds one closed.
ALTER TABLE shifts ADD COLUMN sign_off_required BOOLEAN NOT NULL DEFAULT FALSE;
