//! `keno-server audit`: the auditors' tools (issue 7). Each reads the database directly, in one
//! read-only snapshot, and writes nothing to it (`source`).
//!
//! - `export`: the record of a range of Keno Days or games as CSV or JSON files;
//! - `report`: the daily report as a PDF;
//! - `exceptions`: what a supervisor reviews each day, with who did it and why.
//!
//! A new tool is a variant here, its arguments and `run` in a file of its own.

mod exceptions;
mod export;
mod pdf;
mod queries;
mod report;
mod source;
mod table;

use std::process::ExitCode;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Export games, tickets, settlements, payments and results of a range of Keno Days (or
    /// games) as CSV or JSON, one file per kind.
    Export(export::ExportArgs),
    /// The daily report of a Keno Day as a PDF (A4): games, sales, prizes, pro-rating, faults,
    /// cancellations, late pays, jackpots, invalidations.
    Report(report::ReportArgs),
    /// The day's exceptions to review: faults, corrections, invalidations, cancellations, late
    /// pays, new rule sets and principals; each with when, what, who and why.
    Exceptions(exceptions::ExceptionsArgs),
}

pub fn run(cmd: AuditCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        AuditCommand::Export(args) => export::run(args),
        AuditCommand::Report(args) => report::run(args),
        AuditCommand::Exceptions(args) => exceptions::run(args),
    }
    .map(|()| ExitCode::SUCCESS)
}
