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
//! - Failed sign-ons are counted per person; at the setting's count the person is locked for
//!   the lock period, and a success clears the count.

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

/// The sign-on lock-out: after `max_failures` failed sign-ons in a row a person is locked for
/// `lock_micros`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockOut {
    pub max_failures: u32,
    pub lock_micros: i64,
}

/// A person's standing for sign-on, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignOnFacts {
    pub disabled: bool,
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
}

/// Whether a person may try to sign on at `now`.
pub fn may_sign_on(facts: SignOnFacts, now: i64) -> Result<(), SignOnRefusal> {
    if facts.disabled {
        return Err(SignOnRefusal::Disabled);
    }
    match facts.locked_until {
        Some(until) if until > now => Err(SignOnRefusal::Locked { until }),
        _ => Ok(()),
    }
}

/// What a failed sign-on leaves: the count, and the lock if the count reached the setting (the
/// count then starts again, so the next lock needs as many failures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AfterFailure {
    pub failures: u32,
    pub locked_until: Option<i64>,
}

pub fn after_failure(facts: SignOnFacts, policy: LockOut, now: i64) -> AfterFailure {
    let failures = facts.failures.saturating_add(1);
    if failures >= policy.max_failures.max(1) {
        AfterFailure {
            failures: 0,
            locked_until: Some(now.saturating_add(policy.lock_micros)),
        }
    } else {
        AfterFailure {
            failures,
            locked_until: facts.locked_until.filter(|&until| until > now),
        }
    }
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
        let mut facts = SignOnFacts {
            disabled: false,
            failures: 0,
            locked_until: None,
        };
        for expected in [1, 2] {
            let after = after_failure(facts, POLICY, 10);
            assert_eq!(after.failures, expected);
            assert_eq!(after.locked_until, None);
            facts.failures = after.failures;
        }
        let after = after_failure(facts, POLICY, 10);
        assert_eq!(after.locked_until, Some(1_010));
        facts.failures = after.failures;
        facts.locked_until = after.locked_until;
        assert_eq!(
            may_sign_on(facts, 500),
            Err(SignOnRefusal::Locked { until: 1_010 })
        );
        assert_eq!(may_sign_on(facts, 1_010), Ok(()));
        facts.disabled = true;
        assert_eq!(may_sign_on(facts, 2_000), Err(SignOnRefusal::Disabled));
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
