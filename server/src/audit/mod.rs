//! The audit trail and the auditors' tools (issue 7).
//!
//! Every record that matters enters a hash-chained, append-only log in the transaction that
//! makes it (`log`). `keno-server audit ...` reads the database directly, in one read-only
//! snapshot, and writes nothing to it (`source`):
//!
//! - `verify`: proves from the database alone that nothing was changed behind the server's back;
//! - `export`: the record of a range of Keno Days or games as CSV or JSON files;
//! - `report`: the daily report as a PDF;
//! - `exceptions`: what a supervisor reviews each day, with who did it and why.
//!
//! A new tool is a variant here, its arguments and `run` in a file of its own. Each tool's work
//! is one function that returns its data (`verify::check`, `export::write`, `report::Daily`,
//! `exceptions::review`), which `run` prints or writes and `endpoints` answers over HTTP
//! (`/api/v1/audit/...`, registered by `routes/audit.rs`, with `download` streaming an export
//! to its client).

pub mod anchor;
pub mod chains;
pub mod clock_steps;
mod closed_early;
mod download;
mod draw_alarms;
pub mod endpoints;
pub mod exceptions;
mod export;
pub mod kind;
pub mod live;
pub mod log;
pub mod pdf;
mod queries;
mod report;
mod returns;
mod room;
mod source;
mod system_events;
mod table;
pub mod verify;

use std::process::ExitCode;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Recompute the audit trail's hash chain, compare every record with its entry, and settle
    /// every settled game again; exits 1 on any difference.
    Verify(verify::VerifyArgs),
    /// Export games, tickets, settlements, payments, results, the bonus fund and writers'
    /// shifts of a range of Keno Days (or games) as CSV or JSON, one file per kind.
    Export(export::ExportArgs),
    /// The daily report of a Keno Day as a PDF (A4): games, sales, prizes, pro-rating, faults,
    /// cancellations, late pays, jackpots, invalidations, the bonus fund, shifts.
    Report(report::ReportArgs),
    /// The day's exceptions to review: faults, corrections, invalidations, cancellations, late
    /// pays, new rule sets and principals, shifts over or short, draw monitoring's alarms;
    /// each with when, what, who and why.
    Exceptions(exceptions::ExceptionsArgs),
    /// The actual return to players against the theoretical, per schedule and spot count,
    /// over the tickets sold on the Keno Days asked (all of them without --from).
    Return(returns::ReturnArgs),
    /// The public key of the server's audit signing key (`serve --audit-key`), to hand to
    /// auditors for `audit verify --public-key` and `audit verify-export`.
    PublicKey(anchor::key::PublicKeyArgs),
    /// Check a received export against its signed manifest: the signature, every file's
    /// SHA-256, nothing added or missing; exits 1 on any difference.
    VerifyExport(anchor::manifest::VerifyExportArgs),
}

pub fn run(cmd: AuditCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        AuditCommand::Verify(args) => verify::run(args),
        AuditCommand::Export(args) => export::run(args).map(|()| ExitCode::SUCCESS),
        AuditCommand::Report(args) => report::run(args).map(|()| ExitCode::SUCCESS),
        AuditCommand::Exceptions(args) => exceptions::run(args).map(|()| ExitCode::SUCCESS),
        AuditCommand::Return(args) => returns::run(args).map(|()| ExitCode::SUCCESS),
        AuditCommand::PublicKey(args) => {
            anchor::key::print_public(args).map(|()| ExitCode::SUCCESS)
        }
        AuditCommand::VerifyExport(args) => anchor::manifest::run(args),
    }
}
