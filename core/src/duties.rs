//! Segregation of duties (issue 31; Nevada's MICS): who may manage whom, and that no one takes
//! two parts in one decision.
//!
//! Decisions:
//! - **Managing people.** A supervisor manages writers only: adds them, disables, enables
//!   (which also clears a lock) and resets their secret. Supervisors, inspectors and auditors
//!   are managed by an administrator, whose office takes no part in tickets, claims, the draw
//!   or money, or by the operator at the server host's command line; administrators by the
//!   command line only, so no administrator makes another. No one manages themselves (a reset
//!   of one's own secret would show it to oneself under another's name in the record), and a
//!   new or reset secret is shown to the one making the change only, who under this table is
//!   never a supervisor for anyone but a writer.
//! - **The same person.** People are told apart by their name, not by their staff ID: one
//!   person may hold IDs in several offices (a supervisor who also writes), and two parts of one
//!   decision taken by two of one person's IDs are one person's. Names compare without case,
//!   accents kept, with runs of white space as one; two people of the same name are told apart
//!   by a middle name or initial when they are added.
//! - **Two parts, two people.** The person who files a claim, the one who approves it and the
//!   one who pays it are three people (rules 13, 14); a supervisor never grants an override to
//!   themselves.

use thiserror::Error;

/// The office a person holds (`keno_api::Role` of a person, without the device).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Office {
    Writer,
    Supervisor,
    Inspector,
    Auditor,
    Administrator,
}

/// What is done to a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaffAct {
    Add,
    Disable,
    Enable,
    ResetSecret,
}

impl StaffAct {
    fn verb(self) -> &'static str {
        match self {
            StaffAct::Add => "add",
            StaffAct::Disable => "disable",
            StaffAct::Enable => "enable",
            StaffAct::ResetSecret => "reset the secret of",
        }
    }
}

impl Office {
    fn plural(self) -> &'static str {
        match self {
            Office::Writer => "writers",
            Office::Supervisor => "supervisors",
            Office::Inspector => "inspectors",
            Office::Auditor => "auditors",
            Office::Administrator => "administrators",
        }
    }
}

/// Who makes a change to a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manager<'a> {
    /// A person signed on, of `office`, named `name`.
    Person { office: Office, name: &'a str },
    /// The operator at the server host's command line.
    CommandLine,
}

/// Why a duty is refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DutyRefusal {
    #[error("{by} may not {act} {target}: {who}")]
    NotTheirs {
        by: &'static str,
        act: &'static str,
        target: &'static str,
        who: &'static str,
    },
    #[error("no one manages their own staff IDs: another {who} does")]
    Themselves { who: &'static str },
    #[error("{first} and {second} must be two people: {name} was the {first_part} already")]
    TwoParts {
        first: &'static str,
        second: &'static str,
        first_part: &'static str,
        name: String,
    },
}

/// Who manages people of `target`'s office: the answer of [`may_manage`]'s table, in words.
fn managed_by(target: Office) -> &'static str {
    match target {
        Office::Writer => "a supervisor (or the server's command line)",
        Office::Supervisor | Office::Inspector | Office::Auditor => {
            "an administrator (or the server's command line)"
        }
        Office::Administrator => "the server's command line",
    }
}

/// Whether `by` may do `act` to a person of `target` office named `target_name` (the one table
/// of who manages whom; every path that changes a person asks it).
pub fn may_manage(
    by: Manager<'_>,
    act: StaffAct,
    target: Office,
    target_name: &str,
) -> Result<(), DutyRefusal> {
    let Manager::Person { office, name } = by else {
        return Ok(());
    };
    let allowed = matches!(
        (office, target),
        (Office::Supervisor, Office::Writer)
            | (
                Office::Administrator,
                Office::Supervisor | Office::Inspector | Office::Auditor
            )
    );
    if !allowed {
        return Err(DutyRefusal::NotTheirs {
            by: office.plural(),
            act: act.verb(),
            target: target.plural(),
            who: managed_by(target),
        });
    }
    if same_person(name, target_name) {
        return Err(DutyRefusal::Themselves {
            who: match office {
                Office::Supervisor => "supervisor",
                _ => "administrator",
            },
        });
    }
    Ok(())
}

/// The key a person is told apart by: their name, without case, white space as one space.
pub fn person_key(name: &str) -> String {
    name.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether two names are one person's.
pub fn same_person(a: &str, b: &str) -> bool {
    person_key(a) == person_key(b)
}

/// A part of a decision, for [`two_people`]'s message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    FiledTheClaim,
    ApprovedTheClaim,
    PaysTheClaim,
    WriterAtTheCounter,
    GrantsTheOverride,
    /// Turned a two-key act's key (rules 10.1, 10.4): the supervisor's or the inspector's.
    TurnedTheKey(crate::approval::Key),
}

impl Part {
    fn words(self) -> &'static str {
        match self {
            Part::FiledTheClaim => "person who filed the claim",
            Part::ApprovedTheClaim => "person who approved the claim",
            Part::PaysTheClaim => "person who pays the claim",
            Part::WriterAtTheCounter => "writer at the counter",
            Part::GrantsTheOverride => "supervisor who approves",
            Part::TurnedTheKey(crate::approval::Key::Supervisor) => "supervisor who approves",
            Part::TurnedTheKey(crate::approval::Key::Inspector) => "inspector who approves",
        }
    }
}

/// Refuses `second` taken by `second_name` when `first` was taken by the same person (no one
/// takes two parts in one decision).
pub fn two_people(
    (first, first_name): (Part, &str),
    (second, second_name): (Part, &str),
) -> Result<(), DutyRefusal> {
    if same_person(first_name, second_name) {
        return Err(DutyRefusal::TwoParts {
            first: first.words(),
            second: second.words(),
            first_part: first.words(),
            name: first_name.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(office: Office, name: &str) -> Manager<'_> {
        Manager::Person { office, name }
    }

    #[test]
    fn supervisors_manage_writers_and_administrators_the_oversight() {
        let offices = [
            Office::Writer,
            Office::Supervisor,
            Office::Inspector,
            Office::Auditor,
            Office::Administrator,
        ];
        for by in offices {
            for target in offices {
                for act in [
                    StaffAct::Add,
                    StaffAct::Disable,
                    StaffAct::Enable,
                    StaffAct::ResetSecret,
                ] {
                    let allowed = may_manage(person(by, "ANN"), act, target, "BOB").is_ok();
                    let expected = matches!(
                        (by, target),
                        (Office::Supervisor, Office::Writer)
                            | (
                                Office::Administrator,
                                Office::Supervisor | Office::Inspector | Office::Auditor
                            )
                    );
                    assert_eq!(allowed, expected, "{by:?} {act:?} {target:?}");
                    assert!(may_manage(Manager::CommandLine, act, target, "BOB").is_ok());
                }
            }
        }
        let refused = may_manage(
            person(Office::Supervisor, "ANN"),
            StaffAct::Add,
            Office::Inspector,
            "IAN",
        )
        .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "supervisors may not add inspectors: an administrator (or the server's command line)"
        );
    }

    #[test]
    fn no_one_manages_themselves_under_another_id() {
        let refused = may_manage(
            person(Office::Supervisor, "Ann  Lee"),
            StaffAct::ResetSecret,
            Office::Writer,
            "ann lee",
        );
        assert!(matches!(refused, Err(DutyRefusal::Themselves { .. })));
    }

    #[test]
    fn two_parts_of_a_decision_are_two_people() {
        assert!(two_people(
            (Part::FiledTheClaim, "IAN"),
            (Part::ApprovedTheClaim, "Ian")
        )
        .is_err());
        assert!(two_people(
            (Part::WriterAtTheCounter, "JULIE"),
            (Part::GrantsTheOverride, "ANN")
        )
        .is_ok());
        use crate::approval::Key;
        let e = two_people(
            (Part::TurnedTheKey(Key::Supervisor), "ann  lee"),
            (Part::TurnedTheKey(Key::Inspector), "ANN LEE"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "supervisor who approves and inspector who approves must be two people: ann  lee was the supervisor who approves already"
        );
    }
}
