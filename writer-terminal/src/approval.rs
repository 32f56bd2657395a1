//! A supervisor's approval at the counter, and a hand-pay's record: what the server asks for
//! when a writer alone may not do an action, on the command line and the counter screen alike.
//!
//! A writer handles only tickets sold at the writer's own site (`other_site`) and pays alone
//! only up to the payout limit (`approval_required`). The supervisor comes to the counter and
//! signs on inside the writer's request (staff ID, password and the code of the moment); the
//! grant answered is good once, for that action on that ticket, and the writer's request is
//! sent again carrying it. A major prize is paid by hand (`hand_pay_required`): the claimant's
//! name and identity document, and the cheque's number, are recorded with the payment and
//! printed on its slip.

use keno_api::staff::{HandPay, OverrideAction, OverrideGrant, OverrideRequest, SignOn};
use keno_api::tickets::Tender;
use keno_api::Refusal;

use crate::client::{CallError, Client};

/// What a supervisor types at the writer's counter to approve.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Supervisor {
    pub staff_id: String,
    pub password: String,
    /// The 6-digit code the supervisor's authenticator shows now.
    pub code: String,
    /// Why, recorded with both names.
    pub reason: String,
}

/// Whether the server refused only for want of a supervisor's approval.
pub fn wanted(e: &CallError) -> bool {
    matches!(e, CallError::Refused { code, .. }
        if *code == Refusal::OtherSite || *code == Refusal::ApprovalRequired)
}

/// Whether a payment was refused for want of the hand-pay's record (a major prize, rule 1(h)).
pub fn hand_pay_wanted(e: &CallError) -> bool {
    matches!(e, CallError::Refused { code, .. } if *code == Refusal::HandPayRequired)
}

/// The supervisor signs on inside the writer's request (the writer's session is `client`'s
/// bearer token): the grant for `action` on ticket `serial`.
pub fn ask(
    client: &Client,
    action: OverrideAction,
    serial: &str,
    supervisor: &Supervisor,
) -> Result<OverrideGrant, CallError> {
    let request = OverrideRequest {
        action,
        serial: serial.to_string(),
        supervisor: SignOn {
            staff_id: supervisor.staff_id.trim().to_string(),
            pin: None,
            password: Some(supervisor.password.clone()),
            totp: Some(supervisor.code.trim().to_string()),
        },
        reason: supervisor.reason.trim().to_string(),
    };
    client.post("/api/v1/overrides", &request)
}

/// The ticket a sale's refusal is about: the tendered ticket its message names, or the only
/// ticket tendered (a sale tenders at most one other site's ticket).
pub fn tendered_ticket(tenders: &[Tender], message: &str) -> Option<String> {
    let tickets: Vec<&String> = tenders.iter().filter_map(|t| t.ticket.as_ref()).collect();
    tickets
        .iter()
        .find(|serial| message.contains(serial.as_str()))
        .or(match tickets.as_slice() {
            [only] => Some(only),
            _ => None,
        })
        .map(|s| s.to_string())
}

/// A hand-pay as typed: the cheque's number left out when there is none.
pub fn hand_pay(claimant: &str, id_kind: &str, id_number: &str, cheque: &str) -> HandPay {
    let cheque = cheque.trim();
    HandPay {
        claimant_name: claimant.trim().to_string(),
        id_kind: id_kind.trim().to_string(),
        id_number: id_number.trim().to_string(),
        cheque_number: (!cheque.is_empty()).then(|| cheque.to_string()),
    }
}

/// The payment slip's rows for a hand-pay: who took the prize, the document shown, the cheque.
pub fn slip_rows(hand_pay: &HandPay) -> Vec<(&'static str, String)> {
    let mut rows = vec![
        ("CLAIMANT", hand_pay.claimant_name.clone()),
        (
            "ID",
            format!("{} {}", hand_pay.id_kind.to_uppercase(), hand_pay.id_number),
        ),
    ];
    if let Some(cheque) = &hand_pay.cheque_number {
        rows.push(("CHEQUE No.", cheque.clone()));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(code: Refusal) -> CallError {
        CallError::Refused {
            status: 403,
            code: code.into(),
            message: String::new(),
        }
    }

    #[test]
    fn the_refusals_a_supervisor_or_a_hand_pay_answers() {
        assert!(wanted(&refused(Refusal::OtherSite)));
        assert!(wanted(&refused(Refusal::ApprovalRequired)));
        assert!(!wanted(&refused(Refusal::InvalidOverride)));
        assert!(hand_pay_wanted(&refused(Refusal::HandPayRequired)));
        assert!(!wanted(&CallError::Network("down".into())));
    }

    #[test]
    fn the_ticket_a_sale_was_refused_for() {
        let tenders = [
            Tender::voucher("1234567890123456789012", None),
            Tender::ticket("11111111111111111111"),
        ];
        assert_eq!(
            tendered_ticket(&tenders, "ticket 11111111111111111111 was sold at site 1"),
            Some("11111111111111111111".into())
        );
        assert_eq!(
            tendered_ticket(&tenders, "tender at most one other site's ticket"),
            Some("11111111111111111111".into())
        );
        assert_eq!(tendered_ticket(&tenders[..1], "anything"), None);
    }

    #[test]
    fn a_hand_pay_on_the_slip() {
        let h = hand_pay(" Jo Citizen ", "driver licence", "ACT 123456", " ");
        assert_eq!(h.cheque_number, None);
        assert_eq!(
            slip_rows(&h),
            vec![
                ("CLAIMANT", "Jo Citizen".to_string()),
                ("ID", "DRIVER LICENCE ACT 123456".to_string())
            ]
        );
        let h = hand_pay("Jo", "passport", "P1", "000417");
        assert_eq!(slip_rows(&h)[2], ("CHEQUE No.", "000417".to_string()));
    }
}
