//! Who may pay a prize, and what a hand-pay records.
//!
//! Decisions (issue "Running the room"; commercial systems pay by tier):
//! - A writer pays a ticket up to the writer's payout limit (a setting, $1,999.99 by default);
//!   above it a supervisor approves at the moment of payment.
//! - A payment that includes a major prize (rule 1(h), $200 or more) is a hand-pay: the
//!   claimant's name and an identity document's kind and number are recorded, and a cheque
//!   (rule 12.2) records its number.

use thiserror::Error;

/// The payout tiers: the most a writer pays alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PayoutTiers {
    pub writer_limit_cents: u64,
}

impl Default for PayoutTiers {
    fn default() -> Self {
        PayoutTiers {
            writer_limit_cents: 199_999,
        }
    }
}

/// Who must authorise a payment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Authority {
    Writer,
    Supervisor,
}

impl PayoutTiers {
    pub fn authority_for(&self, total_cents: u64) -> Authority {
        if total_cents > self.writer_limit_cents {
            Authority::Supervisor
        } else {
            Authority::Writer
        }
    }
}

/// The longest field of a hand-pay kept (characters).
pub const HAND_PAY_FIELD_MAX_CHARS: usize = 120;

/// A hand-pay's record as given by the payer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandPay<'a> {
    pub claimant_name: &'a str,
    pub id_kind: &'a str,
    pub id_number: &'a str,
    pub cheque_number: Option<&'a str>,
}

/// A hand-pay missing or malformed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum HandPayError {
    #[error("a major prize is a hand-pay: give the claimant's name and an identity document's kind and number")]
    Missing,
    #[error("a hand-pay's {field} is 1 to {HAND_PAY_FIELD_MAX_CHARS} characters of text")]
    Field { field: &'static str },
    #[error("a prize paid by cheque (rule 12.2) records the cheque's number")]
    ChequeNumber,
}

/// Checks the hand-pay a payment needs: with a major prize, the claimant and ID; with a
/// cheque part, its number. Without a major prize nothing is needed (and nothing is refused).
pub fn check_hand_pay(
    has_major: bool,
    by_cheque: bool,
    given: Option<&HandPay<'_>>,
) -> Result<(), HandPayError> {
    if !has_major {
        return Ok(());
    }
    let pay = given.ok_or(HandPayError::Missing)?;
    for (field, value) in [
        ("claimant_name", pay.claimant_name),
        ("id_kind", pay.id_kind),
        ("id_number", pay.id_number),
    ] {
        let trimmed = value.trim();
        let ok = !trimmed.is_empty()
            && trimmed.chars().count() <= HAND_PAY_FIELD_MAX_CHARS
            && !trimmed.chars().any(char::is_control);
        if !ok {
            return Err(HandPayError::Field { field });
        }
    }
    match pay.cheque_number.map(str::trim) {
        Some(n) if !n.is_empty() && n.chars().count() <= HAND_PAY_FIELD_MAX_CHARS => Ok(()),
        Some(_) => Err(HandPayError::Field {
            field: "cheque_number",
        }),
        None if by_cheque => Err(HandPayError::ChequeNumber),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_pays_up_to_the_limit() {
        let tiers = PayoutTiers::default();
        assert_eq!(tiers.authority_for(199_999), Authority::Writer);
        assert_eq!(tiers.authority_for(200_000), Authority::Supervisor);
        assert_eq!(tiers.authority_for(250_000), Authority::Supervisor);
    }

    #[test]
    fn a_major_prize_needs_the_claimant_and_a_cheque_its_number() {
        let pay = HandPay {
            claimant_name: "Jo Citizen",
            id_kind: "driver licence",
            id_number: "ACT 123456",
            cheque_number: None,
        };
        assert_eq!(check_hand_pay(false, false, None), Ok(()));
        assert_eq!(
            check_hand_pay(true, false, None),
            Err(HandPayError::Missing)
        );
        assert_eq!(check_hand_pay(true, false, Some(&pay)), Ok(()));
        assert_eq!(
            check_hand_pay(true, true, Some(&pay)),
            Err(HandPayError::ChequeNumber)
        );
        let cheque = HandPay {
            cheque_number: Some("000417"),
            ..pay.clone()
        };
        assert_eq!(check_hand_pay(true, true, Some(&cheque)), Ok(()));
        let blank = HandPay {
            id_number: "  ",
            ..pay
        };
        assert_eq!(
            check_hand_pay(true, false, Some(&blank)),
            Err(HandPayError::Field { field: "id_number" })
        );
    }
}
