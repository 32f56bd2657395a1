//! Who may pay a prize, and what a hand-pay records.
//!
//! Decisions (issue "Running the room"; commercial systems pay by tier):
//! - A writer pays a ticket up to the writer's payout limit (a setting, $1,999.99 by default);
//!   above it a supervisor approves at the moment of payment.
//! - A payment that includes a major prize (rule 1(h), $200 or more) is a hand-pay: the
//!   claimant's name and an identity document's kind and number are recorded, and a cheque
//!   (rule 12.2) records its number.

use thiserror::Error;

use crate::text::{clean_text, TextError};

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

/// A hand-pay as kept: each field as [`clean_text`] keeps it (issue 31: no control or
/// invisible character, NFC), so the name on the slip is the name in the exceptions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptHandPay {
    pub claimant_name: String,
    pub id_kind: String,
    pub id_number: String,
    pub cheque_number: Option<String>,
}

/// A hand-pay missing or malformed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum HandPayError {
    #[error("a major prize is a hand-pay: give the claimant's name and an identity document's kind and number")]
    Missing,
    #[error("a hand-pay's {field} (1 to {HAND_PAY_FIELD_MAX_CHARS} characters of text) {problem}")]
    Field {
        field: &'static str,
        problem: TextError,
    },
    #[error("a prize paid by cheque (rule 12.2) records the cheque's number")]
    ChequeNumber,
}

fn field(field: &'static str, value: &str) -> Result<String, HandPayError> {
    clean_text(value, HAND_PAY_FIELD_MAX_CHARS)
        .map_err(|problem| HandPayError::Field { field, problem })
}

/// Checks the hand-pay a payment needs: with a major prize (rule 1(h)), the claimant and ID;
/// with a cheque part, its number (rule 12.2). Answers the hand-pay as kept. Without a major
/// prize nothing is needed, nothing is refused and nothing is kept.
pub fn check_hand_pay(
    has_major: bool,
    by_cheque: bool,
    given: Option<&HandPay<'_>>,
) -> Result<Option<KeptHandPay>, HandPayError> {
    if !has_major {
        return Ok(None);
    }
    let pay = given.ok_or(HandPayError::Missing)?;
    let kept = KeptHandPay {
        claimant_name: field("claimant_name", pay.claimant_name)?,
        id_kind: field("id_kind", pay.id_kind)?,
        id_number: field("id_number", pay.id_number)?,
        cheque_number: match pay.cheque_number {
            Some(n) => Some(field("cheque_number", n)?),
            None if by_cheque => return Err(HandPayError::ChequeNumber),
            None => None,
        },
    };
    Ok(Some(kept))
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
        assert_eq!(check_hand_pay(false, false, None), Ok(None));
        assert_eq!(
            check_hand_pay(true, false, None),
            Err(HandPayError::Missing)
        );
        let kept = check_hand_pay(true, false, Some(&pay)).unwrap().unwrap();
        assert_eq!(kept.claimant_name, "Jo Citizen");
        assert_eq!(kept.cheque_number, None);
        assert_eq!(
            check_hand_pay(true, true, Some(&pay)),
            Err(HandPayError::ChequeNumber)
        );
        let cheque = HandPay {
            cheque_number: Some("000417"),
            ..pay.clone()
        };
        let kept = check_hand_pay(true, true, Some(&cheque)).unwrap().unwrap();
        assert_eq!(kept.cheque_number.as_deref(), Some("000417"));
        let blank = HandPay {
            id_number: "  ",
            ..pay.clone()
        };
        assert_eq!(
            check_hand_pay(true, false, Some(&blank)),
            Err(HandPayError::Field {
                field: "id_number",
                problem: TextError::Empty
            })
        );
    }

    #[test]
    fn a_hand_pay_is_kept_trimmed_in_nfc_without_invisible_characters() {
        let pay = HandPay {
            claimant_name: " Rene\u{0301}e Citizen ",
            id_kind: "passport",
            id_number: "PA 1234567",
            cheque_number: Some(" 000417 "),
        };
        let kept = check_hand_pay(true, true, Some(&pay)).unwrap().unwrap();
        assert_eq!(kept.claimant_name, "Ren\u{00E9}e Citizen");
        assert_eq!(kept.cheque_number.as_deref(), Some("000417"));
        let hidden = HandPay {
            id_number: "PA 123\u{200B}4567",
            ..pay.clone()
        };
        let refused = check_hand_pay(true, false, Some(&hidden)).unwrap_err();
        assert!(matches!(
            &refused,
            HandPayError::Field {
                field: "id_number",
                problem: TextError::Refused {
                    found: '\u{200B}',
                    ..
                }
            }
        ));
        assert!(refused.to_string().contains("U+200B"), "{refused}");
        let cheque = HandPay {
            cheque_number: Some("0004\u{FEFF}17"),
            ..pay
        };
        assert!(matches!(
            check_hand_pay(true, true, Some(&cheque)),
            Err(HandPayError::Field {
                field: "cheque_number",
                ..
            })
        ));
    }
}
