//! `keno-server display ...`: the same changes as the HTTP endpoints, for the operator at the
//! server. Each is recorded as made by the command line and the login it runs under; each
//! prints its answer as JSON (a credential shown once).

use clap::Subcommand;

use super::{disable_in, list_in, register_in, rotate_in};
use crate::cli::DEFAULT_DATABASE;
use crate::staff::cli::{write, Out};
use crate::staff::people::Actor;

#[derive(Debug, Subcommand)]
pub enum DisplayCommand {
    /// Register a display: prints its credential (shown once), for the board's address
    /// (`http://SERVER/?display=CREDENTIAL`) or its config.
    Add {
        #[command(flatten)]
        which: Which,
        #[command(flatten)]
        out: Out,
    },
    /// Replace a display's credential (and enable it again): prints the new one; the old one
    /// stops at once.
    Rotate {
        #[command(flatten)]
        which: Which,
        #[command(flatten)]
        out: Out,
    },
    /// Disable a display: its credential is refused from now on.
    Disable {
        #[command(flatten)]
        which: Which,
    },
    /// List the displays, as JSON.
    List {
        #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
        database_url: String,
    },
}

/// One display, and why it is changed.
#[derive(Debug, clap::Args)]
pub struct Which {
    #[arg(long)]
    pub site: String,
    /// The display's name at the site (1 to 16 letters, digits or dashes).
    #[arg(long)]
    pub display: String,
    #[arg(long)]
    pub reason: String,
    #[arg(long, env = "KENO_DATABASE_URL", default_value = DEFAULT_DATABASE)]
    pub database_url: String,
}

pub fn run(cmd: DisplayCommand) -> anyhow::Result<()> {
    let by = Actor::cli();
    match cmd {
        DisplayCommand::Add { which: w, out } => write(&w.database_url, &out, |conn| {
            register_in(conn, &by, &w.site, &w.display, &w.reason)
        }),
        DisplayCommand::Rotate { which: w, out } => write(&w.database_url, &out, |conn| {
            rotate_in(conn, &by, &w.site, &w.display, &w.reason)
        }),
        DisplayCommand::Disable { which: w } => {
            write(&w.database_url, &Out { field: None }, |conn| {
                disable_in(conn, &by, &w.site, &w.display, &w.reason)
            })
        }
        DisplayCommand::List { database_url } => list(&database_url),
    }
}

fn list(url: &str) -> anyhow::Result<()> {
    let db = crate::db::Db::open(url, 1)?;
    let mut conn = db.conn()?;
    // Every display, page by page.
    let (mut all, mut after) = (Vec::new(), String::new());
    loop {
        let page = list_in(&mut conn, (500, &after))?;
        let last = page.len() < 500;
        if let Some(d) = page.last() {
            after = format!("{}/{}", d.site, d.display);
        }
        all.extend(page);
        if last {
            break;
        }
    }
    println!("{}", serde_json::to_string_pretty(&all)?);
    Ok(())
}
