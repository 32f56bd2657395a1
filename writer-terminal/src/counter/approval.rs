//! What the counter asks when the server wants more than the writer alone (`crate::approval`):
//! a supervisor's approval of an action on another site's ticket or of a payment above the
//! writer's payout limit, typed at this counter by the supervisor (staff ID, password as
//! stars, the code of the moment, a reason); and a major prize's hand-pay (the claimant, the
//! identity document, the cheque). Once given, the action is done again, carrying them.

use keno_api::staff::OverrideAction;

use super::form::{Field, Form};
use super::{refusal, Action, App, Attempt, Prompt, Purpose};
use crate::approval::{self, Supervisor};
use crate::client::CallError;

/// The action a supervisor approves for `action`, and its ticket (a sale's: the ticket
/// tendered that the refusal names).
fn subject(action: &Action, message: &str) -> Option<(OverrideAction, String)> {
    match action {
        Action::Sell(order, _) => approval::tendered_ticket(&order.tenders, message)
            .map(|serial| (OverrideAction::Tender, serial)),
        Action::Pay(serial) => Some((OverrideAction::Pay, serial.clone())),
        Action::Cancel(serial) => Some((OverrideAction::Cancel, serial.clone())),
        Action::Check(serial) => Some((OverrideAction::Check, serial.clone())),
        // A shift's close is the writer's own: no supervisor approves it at the counter.
        Action::CloseShift(_) => None,
    }
}

fn approval_form(message: &str, action: OverrideAction, serial: &str) -> Form {
    Form::new(
        "SUPERVISOR'S APPROVAL",
        vec![
            message.to_string(),
            format!(
                "A supervisor approves {} of ticket {serial} here (ESC drops it):",
                action.as_str().to_uppercase()
            ),
        ],
        vec![
            Field::text("SUPERVISOR STAFF ID"),
            Field::secret("PASSWORD"),
            Field::text("CODE"),
            Field::text("REASON"),
        ],
    )
}

fn hand_pay_form(message: &str) -> Form {
    Form::new(
        "HAND-PAY",
        vec![
            message.to_string(),
            "A major prize: the claimant and the identity document shown (ESC drops it):".into(),
        ],
        vec![
            Field::text("CLAIMANT'S NAME"),
            Field::text("ID DOCUMENT (driver licence, passport)"),
            Field::text("ID NUMBER"),
            Field::optional("CHEQUE No."),
        ],
    )
}

impl App<'_> {
    /// An action refused: when a supervisor or a hand-pay answers it, the form that asks;
    /// otherwise the refusal.
    pub(super) fn refused_in(&mut self, attempt: Attempt, e: CallError) {
        let message = match &e {
            CallError::Refused { message, .. } => message.clone(),
            _ => String::new(),
        };
        if attempt.grant.is_none() && approval::wanted(&e) {
            if let Some((action, serial)) = subject(&attempt.action, &message) {
                self.status = format!("{}: a supervisor approves", refusal(e));
                self.prompt = Some(Prompt {
                    form: approval_form(&message, action, &serial),
                    purpose: Purpose::Approval {
                        attempt,
                        action,
                        serial,
                    },
                });
                return;
            }
        }
        let pays = matches!(attempt.action, Action::Pay(_));
        if pays && attempt.hand_pay.is_none() && approval::hand_pay_wanted(&e) {
            self.status = format!("{}: the claimant's ID", refusal(e));
            self.prompt = Some(Prompt {
                form: hand_pay_form(&message),
                purpose: Purpose::HandPay(attempt),
            });
            return;
        }
        self.refused(e);
    }

    /// The supervisor's credentials typed: the grant, and the action again carrying it; a
    /// refusal leaves the form open for the password and code again.
    pub(super) fn submit_approval(
        &mut self,
        mut form: Form,
        attempt: Attempt,
        action: OverrideAction,
        serial: String,
    ) {
        let supervisor = Supervisor {
            staff_id: form.value("SUPERVISOR STAFF ID").to_string(),
            password: form.value("PASSWORD").to_string(),
            code: form.value("CODE").to_string(),
            reason: form.value("REASON").to_string(),
        };
        self.used();
        match approval::ask(&self.client, action, &serial, &supervisor) {
            Ok(grant) => {
                self.status = format!(
                    "APPROVED BY {}: {} OF TICKET {serial}...",
                    grant.supervisor_name,
                    action.as_str().to_uppercase()
                );
                self.queued = Some(Attempt {
                    grant: Some(grant.grant),
                    ..attempt
                });
            }
            Err(e) if is_ended(&e) => self.refused(e),
            Err(e) => {
                self.status = format!("NOT APPROVED: {} (ESC drops it)", refusal(e));
                form.retype_secrets();
                self.prompt = Some(Prompt {
                    form,
                    purpose: Purpose::Approval {
                        attempt,
                        action,
                        serial,
                    },
                });
            }
        }
    }

    /// The hand-pay typed: the payment again, carrying it.
    pub(super) fn submit_hand_pay(&mut self, form: Form, attempt: Attempt) {
        let hand_pay = approval::hand_pay(
            form.value("CLAIMANT'S NAME"),
            form.value("ID DOCUMENT (driver licence, passport)"),
            form.value("ID NUMBER"),
            form.value("CHEQUE No."),
        );
        self.status = "PAYING...".into();
        self.queued = Some(Attempt {
            hand_pay: Some(hand_pay),
            ..attempt
        });
    }
}

/// Whether the writer's own session ended (not the supervisor's sign-on refused).
fn is_ended(e: &CallError) -> bool {
    matches!(e, CallError::Refused { code, .. } if *code == keno_api::Refusal::SessionEnded)
}
