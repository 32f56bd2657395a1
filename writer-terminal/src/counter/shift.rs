//! The writer's shift at the counter: `shift open 500` with the float in the drawer, `shift
//! close 495` with the cash counted, `shift` for the drawer so far. The header shows what the
//! drawer should hold, as the server works it out, read again after each sale, payment,
//! cancellation and voucher.

use keno_api::staff::{CloseShift, OpenShift, Shift};
use keno_api::Refusal;

use super::command::ShiftCommand;
use super::App;
use crate::client::CallError;
use crate::views;

impl App<'_> {
    /// The header's shift line, read again.
    pub(super) fn refresh_shift(&mut self) {
        match self.client.get::<Shift>("/api/v1/shifts/current") {
            Ok(s) => self.shift = views::shift_line(&s),
            Err(CallError::Refused { code, .. }) if code == Refusal::NoShift => {
                self.shift = "NO SHIFT OPEN: shift open AMOUNT opens one with the float".into()
            }
            Err(e @ CallError::Refused { .. }) if code_is(&e, Refusal::SessionEnded) => {
                self.refused(e)
            }
            // No answer: the line last read stays.
            Err(_) => {}
        }
    }

    pub(super) fn shift_command(&mut self, command: ShiftCommand) {
        self.used();
        let answer = match command {
            ShiftCommand::Show => self.client.get::<Shift>("/api/v1/shifts/current"),
            ShiftCommand::Open(float_cents) => self
                .client
                .post("/api/v1/shifts", &OpenShift { float_cents }),
            // Closing ends the writer's selling here: the drawer is shown first, with what
            // the count comes to against it, and Enter closes.
            ShiftCommand::Close(counted_cents) => {
                return self.confirm_close(counted_cents);
            }
        };
        self.shown(answer);
    }

    /// The drawer as it stands and the count against it, to confirm with Enter.
    fn confirm_close(&mut self, counted_cents: i64) {
        match self.client.get::<Shift>("/api/v1/shifts/current") {
            Ok(s) => {
                // What the close will find, counted less expected (keno-core's `balance`
                // decides it at the server); said as the shift line says it.
                let words = views::over_short_words(counted_cents - s.expected_cents);
                self.panel = views::shift(&s);
                self.status = format!(
                    "CLOSE the shift with {} counted (expected {}: {words})? ENTER to confirm",
                    views::cents(counted_cents),
                    views::cents(s.expected_cents),
                );
                self.confirm = Some(super::Action::CloseShift(counted_cents));
            }
            Err(e) => self.refused(e),
        }
    }

    /// Closes the shift, as confirmed.
    pub(super) fn close_shift(&mut self, counted_cents: i64) -> Result<(), CallError> {
        let closed = self.client.post(
            "/api/v1/shifts/current/close",
            &CloseShift { counted_cents },
        )?;
        self.shown(Ok(closed));
        Ok(())
    }

    fn shown(&mut self, answer: Result<Shift, CallError>) {
        match answer {
            Ok(s) => {
                self.panel = views::shift(&s);
                self.shift = views::shift_line(&s);
                self.status = self.shift.clone();
            }
            Err(e) => self.refused(e),
        }
    }
}

fn code_is(e: &CallError, refusal: Refusal) -> bool {
    matches!(e, CallError::Refused { code, .. } if *code == refusal)
}
