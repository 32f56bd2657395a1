//! `keno-server staff ...` and `keno-server terminal ...`: the same changes as the HTTP
//! endpoints, for the operator at the server (the venue's first supervisor, a locked-out
//! room). Each is recorded as made by the command line and the login it runs under; each
//! prints its answer as JSON (a secret or credential shown once).

use clap::Subcommand;
use keno_api::staff::AddStaff;

use super::people::{self, Actor, Addition, Change, NewSecret};
use super::{secret_kind, terminals};
use crate::auth::Role;
use crate::cli::{role_parser, DEFAULT_DATABASE};
use crate::db::{Db, DbConnection};
use crate::error::Failure;

#[derive(Debug, Subcommand)]
pub enum StaffCommand {
    /// Add a person: prints the staff ID and the secret made (and a TOTP secret and URI for a
    /// supervisor, inspector or auditor), shown once.
    Add {
        #[arg(long)]
        name: String,
        #[arg(long, value_parser = role_parser())]
        role: Role,
        /// A staff ID to use; by default six digits are drawn.
        #[arg(long)]
        staff_id: Option<String>,
        /// The PIN or password to set; by default one is made and printed.
        #[arg(long, env = "KENO_STAFF_SECRET")]
        secret: Option<String>,
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        out: Out,
        #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
        database_url: String,
    },
    /// List everyone, as JSON.
    List {
        #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
        database_url: String,
    },
    /// Disable a person (their sessions end).
    Disable(Target),
    /// Enable a disabled person, or clear the sign-on locks of an enabled one.
    Enable(Target),
    /// Print the code an authenticator app shows now for a TOTP secret (RFC 6238), as
    /// `oathtool --totp -b` would: for scripts and a first sign-on without a phone.
    Code {
        #[arg(long, env = "KENO_TOTP_SECRET")]
        totp_secret: String,
    },
    /// Set a new secret (made and printed unless --secret), clear a lock, end the sessions.
    Reset {
        #[command(flatten)]
        target: Target,
        #[arg(long, env = "KENO_STAFF_SECRET")]
        secret: Option<String>,
        #[command(flatten)]
        out: Out,
    },
}

/// How an answer is printed.
#[derive(Debug, Clone, clap::Args)]
pub struct Out {
    /// Print only this field of the answer (e.g. `credential`, `staff_id`, `secret`), for a
    /// shell variable.
    #[arg(long)]
    pub field: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct Target {
    /// The staff ID.
    pub staff_id: String,
    #[arg(long)]
    pub reason: String,
    #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
    pub database_url: String,
}

#[derive(Debug, Subcommand)]
pub enum TerminalCommand {
    /// Register a terminal: prints its credential (shown once), for the terminal's config.
    Add {
        #[arg(long)]
        site: String,
        #[arg(long)]
        terminal: String,
        /// The venue's name, as players know it ("Civic Club"): a claim for a lost ticket
        /// finds the site by it.
        #[arg(long)]
        venue: Option<String>,
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        out: Out,
        #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
        database_url: String,
    },
    /// Replace a terminal's credential: prints the new one; the old one stops at once.
    Rotate {
        #[arg(long)]
        site: String,
        #[arg(long)]
        terminal: String,
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        out: Out,
        #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
        database_url: String,
    },
    /// List the terminals, as JSON.
    List {
        #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
        database_url: String,
    },
}

fn open(url: &str) -> anyhow::Result<Db> {
    Db::open(url, 1)
}

/// Runs `work` in one transaction on the database at `url`, and prints its answer (or one
/// field of it).
pub(crate) fn write<T: serde::Serialize>(
    url: &str,
    out: &Out,
    work: impl FnOnce(&mut DbConnection) -> Result<T, Failure>,
) -> anyhow::Result<()> {
    let db = open(url)?;
    let mut conn = db.conn()?;
    let answer = conn
        .write_transaction(|conn| work(conn))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let answer = serde_json::to_value(&answer)?;
    match &out.field {
        None => println!("{}", serde_json::to_string_pretty(&answer)?),
        Some(field) => match &answer[field.as_str()] {
            serde_json::Value::String(text) => println!("{text}"),
            serde_json::Value::Null => anyhow::bail!("the answer has no {field}"),
            other => println!("{other}"),
        },
    }
    Ok(())
}

pub fn run_staff(cmd: StaffCommand) -> anyhow::Result<()> {
    let by = Actor::cli();
    match cmd {
        StaffCommand::Add {
            name,
            role,
            staff_id,
            secret,
            reason,
            out,
            database_url,
        } => {
            let req = AddStaff {
                name,
                role,
                staff_id,
                secret,
                reason,
            };
            let addition = Addition::check(&req).map_err(|e| anyhow::anyhow!("{e}"))?;
            write(&database_url, &out, |conn| {
                people::add_in(conn, &by, addition)
            })
        }
        StaffCommand::List { database_url } => list_staff(&database_url),
        StaffCommand::Code { totp_secret } => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
            println!(
                "{}",
                super::secret::totp(&totp_secret, "code")?.generate(now.as_secs())
            );
            Ok(())
        }
        StaffCommand::Disable(t) => change(&by, t, Change::Disable, &Out { field: None }),
        StaffCommand::Enable(t) => change(&by, t, Change::Enable, &Out { field: None }),
        StaffCommand::Reset {
            target,
            secret,
            out,
        } => {
            let db = open(&target.database_url)?;
            let mut conn = db.conn()?;
            let row = super::find(&mut conn, &target.staff_id)?
                .ok_or_else(|| anyhow::anyhow!("no staff ID {}", target.staff_id))?;
            let kind = secret_kind(row.role().map_err(|e| anyhow::anyhow!("{e}"))?)
                .ok_or_else(|| anyhow::anyhow!("a device has no secret"))?;
            let made =
                NewSecret::make(kind, secret.as_deref()).map_err(|e| anyhow::anyhow!("{e}"))?;
            change(&by, target, Change::Reset(made), &out)
        }
    }
}

fn change(by: &Actor, t: Target, change: Change, out: &Out) -> anyhow::Result<()> {
    write(&t.database_url, out, |conn| {
        people::change_in(
            None,
            conn,
            by,
            &t.staff_id,
            change,
            &crate::reason::reason(&t.reason)?,
        )
    })
}

fn list_staff(url: &str) -> anyhow::Result<()> {
    use crate::db::schema::principals;
    use diesel::prelude::*;
    let db = open(url)?;
    let mut conn = db.conn()?;
    let rows: Vec<super::StaffRow> = principals::table
        .filter(principals::kind.eq(super::PrincipalKind::Staff.as_str()))
        .order(principals::id)
        .select(super::StaffRow::as_select())
        .load(&mut *conn)?;
    let now = crate::db::now_micros();
    let mut people = Vec::with_capacity(rows.len());
    for r in &rows {
        let locked = super::people::locked_until(&mut conn, &r.id, now)?;
        people.push(serde_json::json!({ "staff_id": r.id, "name": r.name, "role": r.role, "disabled": r.disabled, "locked_until": locked.map(crate::db::rfc3339) }));
    }
    println!("{}", serde_json::to_string_pretty(&people)?);
    Ok(())
}

pub fn run_terminal(cmd: TerminalCommand) -> anyhow::Result<()> {
    let by = Actor::cli();
    match cmd {
        TerminalCommand::Add {
            site,
            terminal,
            venue,
            reason,
            out,
            database_url,
        } => write(&database_url, &out, |conn| {
            terminals::register_in(conn, &by, (&site, &terminal), venue.as_deref(), &reason)
        }),
        TerminalCommand::Rotate {
            site,
            terminal,
            reason,
            out,
            database_url,
        } => write(&database_url, &out, |conn| {
            terminals::rotate_in(conn, &by, &site, &terminal, &reason)
        }),
        TerminalCommand::List { database_url } => {
            let db = open(&database_url)?;
            let mut conn = db.conn()?;
            // Every terminal, page by page.
            let (mut list, mut after) = (Vec::new(), String::new());
            loop {
                let page = terminals::list_in(&mut conn, (500, &after))?;
                let last = page.len() < 500;
                if let Some(t) = page.last() {
                    after = format!("{}/{}", t.site, t.terminal);
                }
                list.extend(page);
                if last {
                    break;
                }
            }
            println!("{}", serde_json::to_string_pretty(&list)?);
            Ok(())
        }
    }
}
