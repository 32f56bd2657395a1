//! The audit trail and the auditors' command line (`keno-server audit ...`): every record that
//! matters enters a hash-chained, append-only log in the transaction that makes it (`log`), and
//! `verify` proves from the database alone that nothing was changed behind the server's back.

pub mod log;
mod verify;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Recompute the audit trail's hash chain, compare every record with its entry, and settle
    /// every settled game again; exits 1 on any difference.
    Verify(verify::VerifyArgs),
}

pub fn run(command: AuditCommand) -> anyhow::Result<std::process::ExitCode> {
    match command {
        AuditCommand::Verify(args) => verify::run(args),
    }
}
