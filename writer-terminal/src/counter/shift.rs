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
            ShiftCommand::Close(counted_cents) => self.client.post(
                "/api/v1/shifts/current/close",
                &CloseShift { counted_cents },
            ),
        };
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
