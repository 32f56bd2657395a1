//! The kinds of the audit trail's entries: one name each, written by the act that makes the
//! entry and read back by verify, the exceptions and the reports through this enum, so a kind
//! spelt two ways cannot be written or looked for.

/// Declares the kinds with the name each is stored under.
macro_rules! entry_kinds {
    ($($(#[$doc:meta])* $kind:ident = $name:literal,)*) => {
        /// The kind of an audit entry (`audit_log.kind`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EntryKind {
            $($(#[$doc])* $kind,)*
        }

        impl EntryKind {
            pub const ALL: &'static [EntryKind] = &[$(EntryKind::$kind,)*];

            /// The name stored in the trail (and hashed with the entry: never to change).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(EntryKind::$kind => $name,)*
                }
            }

            /// The kind of a stored name; `None` for a name no server writes.
            pub fn parse(name: &str) -> Option<EntryKind> {
                match name {
                    $($name => Some(EntryKind::$kind),)*
                    _ => None,
                }
            }
        }
    };
}

entry_kinds! {
    // Games and the draw (rules 8, 9, 10, 18).
    GameOpened = "game_opened",
    GameClosed = "game_closed",
    NumberDrawn = "number_drawn",
    GameDrawn = "game_drawn",
    GameSettled = "game_settled",
    GameInvalidated = "game_invalidated",
    /// A game's state put right after the clock stepped back (`audit::clock_steps`).
    GameRepaired = "game_repaired",
    DrawFault = "draw_fault",
    CorrectionAsked = "correction_asked",
    CorrectionApplied = "correction_applied",
    CorrectionRejected = "correction_rejected",
    CorrectionLapsed = "correction_lapsed",
    DeviceReturnApproved = "device_return_approved",
    DrawMonitorAlarm = "draw_monitor_alarm",
    ClockStep = "clock_step",
    LeaderElected = "leader_elected",
    RuleSetRecorded = "rule_set_recorded",
    // Tickets and vouchers (rules 5, 8, 11, 12, 13, 17).
    TicketSold = "ticket_sold",
    TicketCancelled = "ticket_cancelled",
    TicketPaid = "ticket_paid",
    TicketVoided = "ticket_voided",
    VoucherIssued = "voucher_issued",
    VoucherSpent = "voucher_spent",
    VoucherCashed = "voucher_cashed",
    // Claims and unclaimed prizes (rule 13).
    ClaimFiled = "claim_filed",
    ClaimApproved = "claim_approved",
    ClaimRejected = "claim_rejected",
    ClaimPaid = "claim_paid",
    UnclaimedMoved = "unclaimed_moved",
    // Prizes, the catalogue and the closures (rules 7, 16.2, 18.4).
    BonusProposed = "bonus_proposed",
    BonusApproved = "bonus_approved",
    BonusWithdrawn = "bonus_withdrawn",
    BonusFundMoved = "bonus_fund_moved",
    SetBetCreated = "set_bet_created",
    SetBetRetired = "set_bet_retired",
    Special3ApprovalRecorded = "special3_approval_recorded",
    Special3ApprovalWithdrawn = "special3_approval_withdrawn",
    KenoClosureScheduled = "keno_closure_scheduled",
    KenoClosureWithdrawn = "keno_closure_withdrawn",
    // People, terminals, displays and their acts (rule 5.1).
    PrincipalAdded = "principal_added",
    StaffAdded = "staff_added",
    StaffDisabled = "staff_disabled",
    StaffEnabled = "staff_enabled",
    StaffSecretReset = "staff_secret_reset",
    TerminalRegistered = "terminal_registered",
    TerminalCredentialRotated = "terminal_credential_rotated",
    DisplayRegistered = "display_registered",
    DisplayCredentialRotated = "display_credential_rotated",
    DisplayDisabled = "display_disabled",
    SignedOn = "signed_on",
    SessionEnded = "session_ended",
    SignOnFailed = "sign_on_failed",
    SignOnUnknownFailures = "sign_on_unknown_failures",
    OverrideGranted = "override_granted",
    ShiftOpened = "shift_opened",
    ShiftClosed = "shift_closed",
    ShiftSignedOff = "shift_signed_off",
    // The system's own state (issue 33).
    /// The system suspended: what was found, by which instance.
    Suspended = "suspended",
    /// A supervisor's or an inspector's key turned to resume; with both, resumed.
    ResumeKeyTurned = "resume_key_turned",
    /// The running software checked against the approved manifest, and what differed.
    IntegrityChecked = "integrity_checked",
    /// A server started: its release, its binary's and rules' digests, and the instances with
    /// no graceful stop recorded since their start.
    ServerStarted = "server_started",
    /// A server stopped gracefully.
    ServerStopped = "server_stopped",
    /// A failure of the server's own machinery began: the database, a commit of unknown
    /// outcome, the drawer, a request failed inside the server (`incidents`).
    SystemFault = "system_fault",
    /// A minute passed without that failure again: how many there were, first and last.
    SystemFaultEnded = "system_fault_ended",
}

impl std::fmt::Display for EntryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::EntryKind;

    #[test]
    fn each_name_reads_back_as_its_kind_and_no_two_share_one() {
        let mut names = std::collections::HashSet::new();
        for &kind in EntryKind::ALL {
            assert_eq!(EntryKind::parse(kind.as_str()), Some(kind));
            assert!(names.insert(kind.as_str()), "{kind:?} shares its name");
        }
        assert_eq!(EntryKind::parse("ticket sold"), None);
    }
}
