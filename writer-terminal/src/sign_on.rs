//! Signing on and off at this terminal from the command line, and the bearer token each other
//! command sends.
//!
//! A registered terminal holds its own credential (`keno-server terminal add`); it lets a
//! writer sign on there with a staff ID and PIN (rule 5.1) and does nothing else. The session
//! the sign-on answers is kept in the session file (`session`) for the commands that follow,
//! until sign-off or until the server ends it (inactivity, the end of the Keno Day, the writer
//! disabled or signed on elsewhere): then the file is forgotten and the server's words shown.
//! A legacy writer token (`--token`, `KENO_TOKEN`) still works for this release, deprecated.

use keno_api::principals::Me;
use keno_api::staff::{Session, SignOn, SignedOn};
use keno_api::Refusal;

use crate::client::{CallError, Client};
use crate::session::{self, Saved, SessionFile};
use crate::{print_or_json, prompt, views, Cli, Failure};

/// The end of the session a request's bearer token is.
pub const SIGN_OFF: &str = "/api/v1/sessions/current/end";

/// What a command's requests carry.
pub enum Bearer {
    /// The session of the writer signed on here.
    Session(Box<Saved>),
    /// Deprecated: a writer token of `keno-server principal add`.
    Legacy(String),
}

impl Bearer {
    pub fn token(&self) -> &str {
        match self {
            Bearer::Session(saved) => &saved.token,
            Bearer::Legacy(token) => token,
        }
    }
}

/// Where this terminal keeps the session (`--session-file`, else `session::default_path`).
pub fn session_file(cli: &Cli) -> SessionFile {
    SessionFile::new(
        cli.session_file
            .clone()
            .unwrap_or_else(|| session::default_path(&crate::state_dir(cli))),
    )
}

/// The bearer token of this command: with a credential configured, the session signed on
/// here (or none: sign on first); else a legacy token if one is given; else a session signed on
/// earlier.
pub fn bearer(cli: &Cli) -> Result<Bearer, Failure> {
    let kept = session_file(cli).load(cli.server());
    if cli.credential.is_some() {
        return kept
            .map(Box::new)
            .map(Bearer::Session)
            .ok_or_else(not_signed_on);
    }
    if let Some(token) = &cli.token {
        eprintln!(
            "warning: a writer token (--token, KENO_TOKEN) is deprecated and works for this \
             release only: register this terminal (`keno-server terminal add`), give its \
             credential (`credential` in the config, KENO_TERMINAL_CREDENTIAL) and sign on"
        );
        return Ok(Bearer::Legacy(token.clone()));
    }
    kept.map(Box::new).map(Bearer::Session).ok_or_else(|| {
        Failure::Usage(
            "not signed on: give this terminal's credential (--credential, \
             KENO_TERMINAL_CREDENTIAL or `credential` in the config) and sign on"
                .into(),
        )
    })
}

fn not_signed_on() -> Failure {
    Failure::Refused(
        "NOT SIGNED ON at this terminal: sign on first (writer-terminal sign-on --staff-id ID)"
            .into(),
    )
}

/// `sign-on`: the writer's staff ID and PIN at this terminal; the session kept for the
/// commands that follow. A session kept before (another writer's) is signed off.
pub fn sign_on(cli: &Cli, staff_id: &str, pin: Option<&str>) -> Result<(), Failure> {
    let credential = cli.credential.as_deref().ok_or_else(|| {
        Failure::Usage(
            "give this terminal's credential (--credential, KENO_TERMINAL_CREDENTIAL or \
             `credential` in the config; `keno-server terminal add` makes it)"
                .into(),
        )
    })?;
    let pin = match pin {
        Some(pin) => pin.to_string(),
        None => prompt::secret("PIN: ").map_err(|e| Failure::Usage(format!("no PIN: {e}")))?,
    };
    let body = SignOn {
        staff_id: staff_id.trim().to_string(),
        pin: Some(pin.trim().to_string()),
        password: None,
        totp: None,
    };
    let signed: SignedOn =
        Client::new(cli.server(), credential, cli.timeout()).post("/api/v1/sessions", &body)?;
    let file = session_file(cli);
    let before = file.load(cli.server());
    let saved = Saved {
        server: cli.server().to_string(),
        token: signed.token,
        session: signed.session,
    };
    if let Err(e) = file.save(&saved) {
        // A session the terminal cannot keep serves nobody: ended rather than left open.
        let _ = end(cli, &saved.token);
        return Err(Failure::Usage(format!(
            "{}: {e}: the session could not be kept, so it was ended",
            file.path().display()
        )));
    }
    if let Some(before) = before.filter(|b| b.token != saved.token) {
        let _ = end(cli, &before.token);
    }
    print_or_json(cli, &saved.session, || {
        format!(
            "{}\n(session kept in {})\n",
            views::session(&saved.session).join("\n"),
            file.path().display()
        )
    });
    Ok(())
}

/// Ends the session of `token` at the server.
fn end(cli: &Cli, token: &str) -> Result<(), CallError> {
    Client::new(cli.server(), token, cli.timeout()).post::<_, ()>(SIGN_OFF, &())
}

/// `sign-off`: the session ends at once, and is forgotten here. One the server had ended
/// already is forgotten too.
pub fn sign_off(cli: &Cli, bearer: &Bearer) -> Result<(), Failure> {
    let Bearer::Session(saved) = bearer else {
        return Err(Failure::Usage(
            "a writer token (--token, KENO_TOKEN) has no session to sign off".into(),
        ));
    };
    match end(cli, &saved.token) {
        Ok(()) => {}
        Err(CallError::Refused { code, message, .. }) if code == Refusal::SessionEnded => {
            eprintln!("the session had ended already: {message}")
        }
        Err(e) => return Err(e.into()),
    }
    let file = session_file(cli);
    file.clear(&saved.token)
        .map_err(|e| Failure::Usage(format!("{}: {e}", file.path().display())))?;
    let s = &saved.session;
    print_or_json(cli, s, || {
        format!(
            "SIGNED OFF: {} (STAFF {}) at terminal {}\n",
            s.name,
            s.staff_id,
            s.terminal.as_deref().unwrap_or("?")
        )
    });
    Ok(())
}

/// `whoami`: the session as the server has it now (or the legacy token's principal).
pub fn whoami(cli: &Cli, client: &Client, bearer: &Bearer) -> Result<(), Failure> {
    match bearer {
        Bearer::Session(_) => {
            let s: Session = client.get("/api/v1/sessions/current")?;
            print_or_json(cli, &s, || views::session(&s).join("\n") + "\n");
        }
        Bearer::Legacy(_) => {
            let me: Me = client.get("/api/v1/principals/me")?;
            print_or_json(cli, &me, || {
                format!(
                    "{} ({}) at terminal {} site {}: a writer token (deprecated), no session\n",
                    me.name,
                    me.role.as_str(),
                    me.terminal.as_deref().unwrap_or("?"),
                    me.site.as_deref().unwrap_or("?")
                )
            });
        }
    }
    Ok(())
}
