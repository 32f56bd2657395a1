//! `keno-server audit verify`: proves the record was not changed behind the server's back.
//!
//! 1. The hash chain: every entry's hash is recomputed from the one before; a changed,
//!    removed or inserted entry breaks it (`chain`, which also gathers what the trail says).
//! 2. Every record against its entry: each ticket as sold (a set bet with its set), cancelled
//!    and paid (`tickets`); each voucher as issued, each of its spends and its cash-out, and its
//!    balance as their sum, and each ticket tendered for a sale (`vouchers`); each principal and
//!    each rule set (its body against its hash) (`principals`); each set of the set-bet
//!    catalogue as added and retired (and each set bet's numbers against its set), each approval
//!    of Special 3 as recorded and withdrawn (`catalogue`); each settled game's numbers, totals
//!    and results digest (`settlements`); each writer's shift as opened, closed and signed off,
//!    and each closed shift's expected cash summed again from its drawer's records (`shifts`);
//!    each game as opened, closed, settled or invalidated, and its draw replayed ball by ball
//!    with its faults and corrections (`games`).
//! 3. Every settled game settled again from the stored tickets and draw with the game's own
//!    rule set, and compared with the stored results (`settlements`).
//!
//! Stored JSON that cannot be read (an entry's payload, a ticket's numbers) is a difference
//! too: read as empty it would vouch for nothing, or hide a change.
//!
//! No record is exempt: the trail began with the database's first migration, so every record
//! has its entry and every entry its record, whatever time a row claims (a row stamped before
//! the trail is a forgery, not history).

mod catalogue;
mod chain;
mod checkpoints;
mod entries;
mod fund;
mod games;
mod principals;
mod settlements;
mod shifts;
mod since;
mod staff;
mod suspensions;
mod tickets;
mod voids;
mod vouchers;

use std::process::ExitCode;

use clap::Args;
use diesel::prelude::*;

use super::source::snapshot;
use crate::db::{Db, DbConnection};

pub use checkpoints::Proof;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[arg(long, env = "KENO_DATABASE_URL", default_value = crate::db::DEFAULT_DATABASE)]
    pub database_url: String,
    /// A public key the checkpoints must be signed by: 64 hex digits, or a file written by
    /// `audit public-key` (several may be given). Without one, signatures are not checked.
    #[arg(long = "public-key")]
    pub public_keys: Vec<String>,
    /// The checkpoint file kept outside the database (the server's --checkpoints): the trail
    /// is proved against it, and it against the checkpoints stored in the database.
    #[arg(long)]
    pub checkpoints: Option<std::path::PathBuf>,
    /// Check only what is new since checkpoint N, which an earlier full verify covered: the
    /// entries after it and the records they name (it says what it takes as proved).
    #[arg(long = "from-checkpoint", value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub from_checkpoint: Option<i64>,
}

/// What a verification found: each difference, and what was checked.
pub struct Report {
    pub differences: Vec<String>,
    pub checked: Vec<String>,
    /// Print each line as it is found (the command), or only gather them (over HTTP).
    echo: bool,
}

impl Report {
    fn differ(&mut self, what: String) {
        if self.echo {
            println!("DIFFERENCE: {what}");
        }
        self.differences.push(what);
    }

    fn checked(&mut self, what: String) {
        if self.echo {
            println!("checked: {what}");
        }
        self.checked.push(what);
    }
}

/// Verifies the record as `conn` sees it, which the caller reads in one read-only snapshot
/// (`source::snapshot`): the command and `GET /api/v1/audit/verify` both run this.
/// From checkpoint `from`, it checks what is new since (`since`).
pub fn check(
    conn: &mut DbConnection,
    proof: &Proof,
    from: Option<i64>,
    echo: bool,
) -> anyhow::Result<Report> {
    let mut report = Report {
        differences: Vec::new(),
        checked: Vec::new(),
        echo,
    };
    let since = from.map(|n| since::Since::load(conn, n)).transpose()?;
    let stored = crate::audit::anchor::stored_from(conn, from.unwrap_or(1))?;
    let wanted = checkpoints::wanted(&stored, proof, from);
    let trail = chain::read(conn, &wanted, since, &mut report)?;
    checkpoints::check(&stored, proof, &trail, &mut report);
    let unreadable = tickets::check(conn, &trail, &mut report)?;
    vouchers::check(conn, &trail, &mut report)?;
    principals::check(conn, &trail, &mut report)?;
    staff::check(conn, &trail, &mut report)?;
    catalogue::check(conn, &trail, &mut report)?;
    fund::check(conn, &trail, &mut report)?;
    voids::check(conn, &trail, &mut report)?;
    games::check(conn, &trail, &mut report)?;
    shifts::check(conn, &trail, &mut report)?;
    suspensions::check(conn, &trail, &mut report)?;
    settlements::check(conn, &trail, &unreadable, &mut report)?;
    Ok(report)
}

pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    // The database as it is, never created or migrated.
    let proof = Proof {
        keys: args
            .public_keys
            .iter()
            .map(|k| crate::audit::anchor::key::parse_public(k))
            .collect::<anyhow::Result<_>>()?,
        file: args
            .checkpoints
            .as_deref()
            .map(crate::audit::anchor::file::read)
            .transpose()?,
        read_at: crate::db::now_micros(),
    };
    let started = std::time::Instant::now();
    let db = Db::open_existing(&args.database_url, 1)?;
    let report = snapshot(&mut *db.conn()?, |conn| {
        check(conn, &proof, args.from_checkpoint, true)
    })?;
    println!("took {:.1} s", started.elapsed().as_secs_f64());
    if report.differences.is_empty() {
        println!("verified: the audit trail is intact and every record matches it");
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "NOT VERIFIED: {} difference(s) between the record and its audit trail",
            report.differences.len()
        );
        Ok(ExitCode::from(1))
    }
}

/// Rows read in pages of this many: a record of millions is never held whole.
const PAGE: i64 = 10_000;

/// Every row of a table in the order of its key after `start`, a page at a time: `load` reads
/// the rows after a key, `each` takes each row.
fn for_each_page<T, K>(
    conn: &mut DbConnection,
    start: K,
    load: impl Fn(&mut DbConnection, &K) -> QueryResult<Vec<T>>,
    key: impl Fn(&T) -> K,
    mut each: impl FnMut(T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut after = start;
    loop {
        let page = load(conn, &after)?;
        let Some(last) = page.last() else {
            return Ok(());
        };
        after = key(last);
        for row in page {
            each(row)?;
        }
    }
}

/// One verification at a time on this instance: it reads the whole record and settles every
/// game again. App data of its own.
#[derive(Default)]
pub struct Verifying(std::sync::atomic::AtomicBool);

/// The verification under way; over when dropped, however it ended.
pub struct Running(std::sync::Arc<Verifying>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0 .0.store(false, std::sync::atomic::Ordering::Release);
    }
}

impl Verifying {
    /// The turn to verify, or `verify_running` while another verification runs here.
    pub fn start(verifying: std::sync::Arc<Verifying>) -> Result<Running, crate::failure::Failure> {
        use std::sync::atomic::Ordering;
        verifying
            .0
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| Running(verifying.clone()))
            .map_err(|_| {
                crate::failure::Failure::refuse(
                    keno_api::Refusal::VerifyRunning,
                    "a verification is already running on this server: ask again when it has \
                     finished",
                )
            })
    }
}
