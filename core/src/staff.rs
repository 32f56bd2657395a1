//! People at work: their secrets, sign-on with its lock-out, and how long a session lasts.
//!
//! Pure decisions, time as an input (microseconds since the epoch, as the server stores it).
//! An entry is made only through a writer terminal (rule 5.1), so a writer's session is bound
//! to the terminal and site signed on at; the server stores and enforces what is decided here.
//!
//! Decisions (issue "Running the room"; Nevada MICS: one active ID per person, segregation of
//! duties):
//! - A writer proves who they are with a PIN of 4 to 8 digits typed at the counter; a
//!   supervisor, inspector or auditor with a password of at least 12 characters and a TOTP code
//!   (RFC 6238), since their acts approve and audit others'.
//! - A session ends at sign-off, after a period without a request (a setting), and at the end
//!   of the Keno Day it began in (rule 1(d)); a person disabled ends every session at once.
//! - Failed sign-ons are counted per person and place (the registered terminal, or else the
//!   client's address), each try counted before its secret is checked; at the setting's count
//!   the person is locked there for the lock period, and a success clears the count.

use thiserror::Error;

/// How a person proves who they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretKind {
    /// A writer: a PIN of [`PIN_DIGITS`] digits.
    Pin,
    /// A supervisor, inspector or auditor: a password and a TOTP code.
    PasswordAndCode,
}

/// The length a PIN may have.
pub const PIN_DIGITS: std::ops::RangeInclusive<usize> = 4..=8;
/// The shortest password kept.
pub const PASSWORD_MIN_CHARS: usize = 12;
/// The longest password kept (argon2 takes any length; a bound keeps requests small).
pub const PASSWORD_MAX_CHARS: usize = 200;

/// A secret refused as too weak or malformed; the message never repeats the secret.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SecretError {
    #[error("a PIN is {min} to {max} digits", min = PIN_DIGITS.start(), max = PIN_DIGITS.end())]
    Pin,
    #[error(
        "a password is {PASSWORD_MIN_CHARS} to {PASSWORD_MAX_CHARS} characters, not all the same"
    )]
    Password,
}

/// Whether `secret` may be set as a secret of this kind.
pub fn check_secret(kind: SecretKind, secret: &str) -> Result<(), SecretError> {
    match kind {
        SecretKind::Pin => {
            let ok =
                PIN_DIGITS.contains(&secret.len()) && secret.bytes().all(|b| b.is_ascii_digit());
            ok.then_some(()).ok_or(SecretError::Pin)
        }
        SecretKind::PasswordAndCode => {
            let chars = secret.chars().count();
            let first = secret.chars().next();
            let varied = secret.chars().any(|c| Some(c) != first);
            let ok = (PASSWORD_MIN_CHARS..=PASSWORD_MAX_CHARS).contains(&chars) && varied;
            ok.then_some(()).ok_or(SecretError::Password)
        }
    }
}

/// The sign-on lock-out: after `max_failures` failed sign-ons in a row at one place a person
/// is locked there for `lock_micros`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockOut {
    pub max_failures: u32,
    pub lock_micros: i64,
}

/// A person's failed sign-ons in a row at one place, as stored.
///
/// Failures are counted per person and place (issue 31), the place being the registered
/// terminal whose credential the try carried, or else the client's address: an outsider, who
/// holds no terminal's credential, locks a person only at the outsider's own address, never at
/// the counters or the console where the person works.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FailureCount {
    pub failures: u32,
    pub locked_until: Option<i64>,
}

/// Why a sign-on is refused before its secret is looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum SignOnRefusal {
    #[error("this staff ID is disabled")]
    Disabled,
    #[error("too many failed sign-ons: this staff ID is locked until {until} (microseconds); a supervisor can reset it")]
    Locked { until: i64 },
    /// As many tries as the allowance holds are being checked now: one more waits for them.
    #[error("as many sign-ons of this staff ID as are allowed in a row are being checked now")]
    AllUnderWay,
}

/// A try reserved before its secret is checked: which try in a row it is, or why it is
/// refused unchecked, and the count to store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reserved {
    pub outcome: Result<u32, SignOnRefusal>,
    pub store: FailureCount,
}

/// Takes a try from a person's allowance at a place, before the secret is checked.
///
/// The count is raised first and the try judged on the raised value, under the stored row's
/// lock: tries made at the same moment each get their own number, so no more than
/// `max_failures` of them are ever checked, however many arrive at once (argon2 takes long
/// enough for forty to read the same count). A try past the allowance while the others are
/// still being checked is refused unchecked and leaves the count as it is: the lock comes only
/// from tries judged and failed, so tries of the right secret at once never lock a person. A
/// lock that has run out starts the count again.
pub fn reserve_try(disabled: bool, stored: FailureCount, policy: LockOut, now: i64) -> Reserved {
    if disabled {
        return Reserved {
            outcome: Err(SignOnRefusal::Disabled),
            store: stored,
        };
    }
    if let Some(until) = stored.locked_until.filter(|&until| until > now) {
        return Reserved {
            outcome: Err(SignOnRefusal::Locked { until }),
            store: stored,
        };
    }
    let before = if stored.locked_until.is_some() {
        0
    } else {
        stored.failures
    };
    let attempt = before.saturating_add(1);
    if attempt > policy.max_failures.max(1) {
        return Reserved {
            outcome: Err(SignOnRefusal::AllUnderWay),
            store: stored,
        };
    }
    Reserved {
        outcome: Ok(attempt),
        store: FailureCount {
            failures: attempt,
            locked_until: None,
        },
    }
}

/// What try number `attempt`, failed, leaves, with `stored` the count as it stands now: a
/// lock when it was the last the allowance had (the count then starts again, so the next lock
/// needs as many failures); `None` leaves the count as it is. A count cleared since the try was
/// taken (`stored` none: the person proved who they are meanwhile) brings no lock.
pub fn after_failed_try(
    attempt: u32,
    stored: Option<FailureCount>,
    policy: LockOut,
    now: i64,
) -> Option<FailureCount> {
    stored?;
    (attempt >= policy.max_failures.max(1)).then(|| FailureCount {
        failures: 0,
        locked_until: Some(now.saturating_add(policy.lock_micros)),
    })
}

/// Why a session is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SessionEnd {
    SignedOff,
    Inactive,
    KenoDayEnded,
    Disabled,
    /// The person signed on again elsewhere (one active session per person).
    Replaced,
    /// The person's secret was reset: whoever knew the old one is signed off.
    SecretReset,
}

impl SessionEnd {
    pub const ALL: &'static [SessionEnd] = &[
        SessionEnd::SignedOff,
        SessionEnd::Inactive,
        SessionEnd::KenoDayEnded,
        SessionEnd::Disabled,
        SessionEnd::Replaced,
        SessionEnd::SecretReset,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SessionEnd::SignedOff => "signed_off",
            SessionEnd::Inactive => "inactive",
            SessionEnd::KenoDayEnded => "keno_day_ended",
            SessionEnd::Disabled => "disabled",
            SessionEnd::Replaced => "replaced",
            SessionEnd::SecretReset => "secret_reset",
        }
    }

    pub fn parse(s: &str) -> Option<SessionEnd> {
        SessionEnd::ALL.iter().copied().find(|e| e.as_str() == s)
    }

    /// What the person is told when a request finds the session over.
    pub fn message(self) -> &'static str {
        match self {
            SessionEnd::SignedOff => "the session was signed off: sign on again",
            SessionEnd::Inactive => "the session ended after a time without use: sign on again",
            SessionEnd::KenoDayEnded => "the session ended with the Keno Day: sign on again",
            SessionEnd::Disabled => "the session ended: this staff ID was disabled",
            SessionEnd::Replaced => "the session ended: the same person signed on elsewhere",
            SessionEnd::SecretReset => {
                "the session ended: the secret was reset; sign on with the new one"
            }
        }
    }
}

/// A session as stored: its last request and the end of its Keno Day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionFacts {
    pub last_seen_at: i64,
    pub expires_at: i64,
    pub ended: Option<SessionEnd>,
}

/// Whether the session still stands at `now`, with `idle_micros` of inactivity allowed.
pub fn session_standing(facts: SessionFacts, idle_micros: i64, now: i64) -> Result<(), SessionEnd> {
    if let Some(end) = facts.ended {
        return Err(end);
    }
    if now >= facts.expires_at {
        return Err(SessionEnd::KenoDayEnded);
    }
    if now.saturating_sub(facts.last_seen_at) > idle_micros {
        return Err(SessionEnd::Inactive);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: LockOut = LockOut {
        max_failures: 3,
        lock_micros: 1_000,
    };

    #[test]
    fn pins_and_passwords() {
        assert!(check_secret(SecretKind::Pin, "4821").is_ok());
        assert!(check_secret(SecretKind::Pin, "12345678").is_ok());
        assert_eq!(check_secret(SecretKind::Pin, "123"), Err(SecretError::Pin));
        assert_eq!(check_secret(SecretKind::Pin, "12a4"), Err(SecretError::Pin));
        assert_eq!(
            check_secret(SecretKind::Pin, "123456789"),
            Err(SecretError::Pin)
        );
        let kind = SecretKind::PasswordAndCode;
        assert!(check_secret(kind, "correct horse battery").is_ok());
        assert_eq!(check_secret(kind, "short"), Err(SecretError::Password));
        assert_eq!(
            check_secret(kind, "aaaaaaaaaaaaaaaa"),
            Err(SecretError::Password)
        );
    }

    #[test]
    fn the_third_failure_locks_and_the_lock_passes() {
        let mut stored = FailureCount::default();
        for expected in [1, 2] {
            let reserved = reserve_try(false, stored, POLICY, 10);
            assert_eq!(reserved.outcome, Ok(expected));
            stored = reserved.store;
            assert_eq!(after_failed_try(expected, Some(stored), POLICY, 10), None);
        }
        let third = reserve_try(false, stored, POLICY, 10);
        assert_eq!(third.outcome, Ok(3));
        assert_eq!(
            after_failed_try(3, None, POLICY, 10),
            None,
            "a success since cleared the count"
        );
        let locked = after_failed_try(3, Some(third.store), POLICY, 10).expect("the third locks");
        assert_eq!(locked.locked_until, Some(1_010));
        assert_eq!(
            reserve_try(false, locked, POLICY, 500).outcome,
            Err(SignOnRefusal::Locked { until: 1_010 })
        );
        let after = reserve_try(false, locked, POLICY, 1_010);
        assert_eq!(
            after.outcome,
            Ok(1),
            "a lock run out starts the count again"
        );
        assert_eq!(
            reserve_try(true, FailureCount::default(), POLICY, 2_000).outcome,
            Err(SignOnRefusal::Disabled)
        );
    }

    #[test]
    fn tries_at_once_are_numbered_and_those_past_the_allowance_refused_unchecked() {
        // Forty tries reserved before any is checked: three are judged, the rest refused.
        let mut stored = FailureCount::default();
        let mut judged = 0;
        for _ in 0..40 {
            let reserved = reserve_try(false, stored, POLICY, 10);
            stored = reserved.store;
            match reserved.outcome {
                Ok(_) => judged += 1,
                Err(refusal) => assert_eq!(refusal, SignOnRefusal::AllUnderWay),
            }
        }
        assert_eq!(judged, 3);
        assert_eq!(stored.failures, 3);
        assert_eq!(
            stored.locked_until, None,
            "no lock until a try is judged and fails"
        );
    }

    #[test]
    fn a_session_ends_at_idle_at_day_end_or_when_ended() {
        let facts = SessionFacts {
            last_seen_at: 100,
            expires_at: 10_000,
            ended: None,
        };
        assert_eq!(session_standing(facts, 50, 150), Ok(()));
        assert_eq!(session_standing(facts, 50, 151), Err(SessionEnd::Inactive));
        assert_eq!(
            session_standing(facts, 1_000_000, 10_000),
            Err(SessionEnd::KenoDayEnded)
        );
        let ended = SessionFacts {
            ended: Some(SessionEnd::Disabled),
            ..facts
        };
        assert_eq!(session_standing(ended, 50, 120), Err(SessionEnd::Disabled));
        for end in SessionEnd::ALL {
            assert_eq!(SessionEnd::parse(end.as_str()), Some(*end));
        }
    }
}
