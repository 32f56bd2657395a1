//! The sign-on screen and the session at the counter (rule 5.1).
//!
//! With no writer signed on here, the counter shows the sign-on form (staff ID, PIN shown as
//! stars) in place of the entry line; the game, the pools and the draw stay live above it. The
//! terminal's credential and the PIN make a session, kept in the session file so the
//! command-line commands share it. `so` signs off. When the server ends the session (a time
//! without use, the end of the Keno Day, the writer disabled or signed on elsewhere), the
//! counter says so in the server's words and returns to the sign-on screen.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use keno_api::principals::Me;
use keno_api::staff::{Session, SignOn, SignedOn};
use keno_api::Refusal;

use super::form::{Field, Form};
use super::{help, refusal, App, Prompt, Purpose, Standing};
use crate::client::{CallError, Client};
use crate::session::Saved;

/// How long the counter waits for the server.
pub(super) const TIMEOUT: Duration = Duration::from_secs(10);

pub(super) fn form(note: Vec<String>) -> Form {
    Form::new(
        "SIGN ON",
        note,
        vec![Field::text("STAFF ID"), Field::secret("PIN")],
    )
}

/// The header's words for who is signed on.
fn operator(s: &Session) -> String {
    format!(
        "OPERATOR {}  TERMINAL {}  SITE {}  STAFF {}",
        s.name,
        s.terminal.as_deref().unwrap_or("?"),
        s.site.as_deref().unwrap_or("?"),
        s.staff_id
    )
}

impl App<'_> {
    /// At start: the session kept here if the server still has it, else the sign-on screen.
    pub(super) fn resume(&mut self) -> anyhow::Result<()> {
        let Some(saved) = self.settings.sessions.load(self.settings.server) else {
            self.show_sign_on("NOT SIGNED ON: type your staff ID and PIN".into());
            return Ok(());
        };
        let client = Client::new(self.settings.server, &saved.token, TIMEOUT);
        match client.get::<Session>("/api/v1/sessions/current") {
            Ok(session) => self.signed_on(Saved { session, ..saved }),
            Err(CallError::Refused { code, message, .. }) => {
                let _ = self.settings.sessions.clear(&saved.token);
                let why = if code == Refusal::SessionEnded {
                    format!("SESSION ENDED: {message}")
                } else {
                    format!("NOT SIGNED ON ({code}): {message}")
                };
                self.show_sign_on(why);
            }
            Err(e) => anyhow::bail!("cannot sign on: {e}"),
        }
        Ok(())
    }

    /// A legacy writer token (deprecated): signed on as its principal while the counter runs.
    pub(super) fn legacy(&mut self, token: &str) -> anyhow::Result<()> {
        self.client = Client::new(self.settings.server, token, TIMEOUT);
        let me: Me = self
            .client
            .get("/api/v1/principals/me")
            .map_err(|e| anyhow::anyhow!("cannot sign on: {e}"))?;
        self.writer = format!(
            "OPERATOR {}  TERMINAL {}  SITE {}",
            me.name,
            me.terminal.as_deref().unwrap_or("?"),
            me.site.as_deref().unwrap_or("?")
        );
        self.session = Some(Standing {
            saved: None,
            last_used: Instant::now(),
        });
        self.status = "signed on with a writer token (deprecated: register this terminal, \
                       give its credential and sign on)"
            .into();
        self.refresh_shift();
        Ok(())
    }

    /// The sign-on screen, saying why; the writer signed on before is forgotten.
    pub(super) fn show_sign_on(&mut self, why: String) {
        self.session = None;
        self.client = Client::new(self.settings.server, "", TIMEOUT);
        self.writer = "NOT SIGNED ON".into();
        self.shift = String::new();
        self.pending = None;
        self.confirm = None;
        self.queued = None;
        self.checked = None;
        self.cancel_preview = None;
        self.unconfirmed = None;
        self.panel = Vec::new();
        let note = match self.settings.credential {
            Some(_) => vec!["Type your staff ID and PIN (Ctrl-C quits).".to_string()],
            None => vec![
                "This terminal has no credential: give it `credential` in the config or \
                 KENO_TERMINAL_CREDENTIAL (keno-server terminal add makes one)."
                    .to_string(),
            ],
        };
        self.prompt = Some(Prompt {
            form: form(note),
            purpose: Purpose::SignOn,
        });
        self.status = why;
    }

    /// The staff ID and PIN typed: a session at this terminal, or the server's refusal.
    pub(super) fn submit_sign_on(&mut self, mut form: Form) {
        let Some(credential) = self.settings.credential else {
            self.status = "NOT SIGNED ON: this terminal has no credential".into();
            form.retype_secrets();
            self.prompt = Some(Prompt {
                form,
                purpose: Purpose::SignOn,
            });
            return;
        };
        let body = SignOn {
            staff_id: form.value("STAFF ID").to_string(),
            pin: Some(form.value("PIN").to_string()),
            password: None,
            totp: None,
        };
        let terminal = Client::new(self.settings.server, credential, TIMEOUT);
        match terminal.post::<_, SignedOn>("/api/v1/sessions", &body) {
            Ok(signed) => {
                let saved = Saved {
                    server: self.settings.server.to_string(),
                    token: signed.token,
                    session: signed.session,
                };
                let kept = self.settings.sessions.save(&saved);
                self.signed_on(saved);
                if let Err(e) = kept {
                    self.status = format!(
                        "{} - the session was not kept for the other commands ({e})",
                        self.status
                    );
                }
            }
            Err(e) => {
                self.status = refusal(e);
                form.retype_secrets();
                self.prompt = Some(Prompt {
                    form,
                    purpose: Purpose::SignOn,
                });
            }
        }
    }

    /// The counter as the writer signed on sees it.
    fn signed_on(&mut self, saved: Saved) {
        self.client = Client::new(self.settings.server, &saved.token, TIMEOUT);
        self.writer = operator(&saved.session);
        self.status = format!("signed on: {}", saved.session.name);
        self.session = Some(Standing {
            saved: Some(saved),
            last_used: Instant::now(),
        });
        self.prompt = None;
        self.panel = help();
        self.refresh_shift();
    }

    /// `so`: the session ends at once and the sign-on screen comes back.
    pub(super) fn sign_off(&mut self) {
        let Some(saved) = self.session.as_ref().and_then(|s| s.saved.clone()) else {
            self.status = "a writer token (deprecated) has no session to sign off".into();
            return;
        };
        let name = saved.session.name.clone();
        match self.client.post::<_, ()>(crate::sign_on::SIGN_OFF, &()) {
            Ok(()) => {}
            Err(CallError::Refused { code, .. }) if code == Refusal::SessionEnded => {}
            Err(e) => {
                self.status = format!("NOT SIGNED OFF: {}", refusal(e));
                return;
            }
        }
        let _ = self.settings.sessions.clear(&saved.token);
        self.show_sign_on(format!("SIGNED OFF: {name}"));
    }

    /// The server ended the session: said plainly, in its words, and the sign-on screen.
    pub(super) fn session_ended(&mut self, message: String) {
        if let Some(token) = self
            .session
            .as_ref()
            .and_then(|s| s.saved.as_ref())
            .map(|s| s.token.clone())
        {
            let _ = self.settings.sessions.clear(&token);
        }
        self.show_sign_on(format!("SESSION ENDED: {message}"));
    }

    /// Notes a request of the writer's: the session is in use.
    pub(super) fn used(&mut self) {
        if let Some(s) = &mut self.session {
            s.last_used = Instant::now();
        }
    }

    /// Once the session should have ended (a time without use, the end of the Keno Day), the
    /// server is asked, and the counter shows the end without waiting for the writer's next
    /// request. Asked no sooner: the question would count as use.
    pub(super) fn check_session(&mut self) {
        let Some(Standing {
            saved: Some(saved),
            last_used,
        }) = &self.session
        else {
            return;
        };
        let idle = Duration::from_secs(saved.session.idle_timeout_seconds) + Duration::from_secs(1);
        let day_over = saved
            .session
            .expires_at
            .parse::<DateTime<Utc>>()
            .is_ok_and(|end| Utc::now() >= end);
        // Past the day's end by the terminal's clock but not yet by the server's: asked again
        // every half minute.
        let quiet = last_used.elapsed();
        if quiet <= idle && !(day_over && quiet > Duration::from_secs(30)) {
            return;
        }
        let asked = self.client.get::<Session>("/api/v1/sessions/current");
        // Still standing (or no answer): asked again after as long.
        self.used();
        if let Err(CallError::Refused { code, message, .. }) = asked {
            if code == Refusal::SessionEnded {
                self.session_ended(message);
            }
        }
    }
}
