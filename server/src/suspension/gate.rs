//! Each instance's view of whether the system is suspended, for its requests and its drawer:
//! set from the stored suspensions as they begin and end here, and read again from the
//! database every second (another instance's). Infrastructure: it knows the core's list of
//! what stays open while suspended and nothing of the rows.

use std::sync::{Arc, RwLock};

use keno_api::Refusal;
use keno_core::suspension::{open_while_suspended, Cause, Doing};

use crate::events::bus::Events;
use crate::failure::Failure;

/// The suspension in force, as a request sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closed {
    /// What players and staff read.
    pub message: String,
    pub causes: Vec<Cause>,
    /// The suspensions in force, by id.
    pub ids: Vec<i64>,
}

/// Whether the system is suspended now.
#[derive(Default)]
pub struct Gate {
    closed: RwLock<Option<Arc<Closed>>>,
}

impl Gate {
    /// `doing` may go on, or is refused (503 `suspended`) with the reason.
    pub fn admit(&self, doing: Doing) -> Result<(), Failure> {
        match self.closed() {
            Some(closed) if !open_while_suspended(doing) => {
                Err(Failure::refuse(Refusal::Suspended, closed.message.clone()))
            }
            _ => Ok(()),
        }
    }

    pub fn closed(&self) -> Option<Arc<Closed>> {
        self.closed
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A restore is in force: the database is behind its checkpoint file, and no checkpoint
    /// is signed until two people accept it (one would take a number the file has).
    pub fn restoring(&self) -> bool {
        self.closed()
            .is_some_and(|c| c.causes.contains(&Cause::Restore))
    }

    /// As [`Gate::set`], on the instance where a suspension began or ended: a change is
    /// published (`suspension_changed`) for the displays and consoles. Another instance's
    /// change, read from the database, is only set: that instance published it.
    pub fn tell(&self, events: &Events, now: Option<Closed>) {
        let message = now.as_ref().map(|c| c.message.clone());
        if self.set(now) {
            events.publish(&keno_api::events::Event::SuspensionChanged(
                keno_api::events::SuspensionChanged {
                    suspended: message.is_some(),
                    message: message.unwrap_or_default(),
                },
            ));
        }
    }

    /// What is in force now (`None`: nothing); whether that changed.
    pub fn set(&self, now: Option<Closed>) -> bool {
        let mut closed = self.closed.write().unwrap_or_else(|e| e.into_inner());
        if closed.as_deref() == now.as_ref() {
            return false;
        }
        *closed = now.map(Arc::new);
        true
    }
}
