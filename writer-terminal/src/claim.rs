//! `writer-terminal claim ...`: recording a player's Unclaimed Prize Claim Form (rules 13.1,
//! 14; Diagram E) at the counter, seeing where it stands, and printing the form to post.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use keno_api::claims::{Claim, ClaimForm, ClaimReason};

use crate::client::{CallError, Client};

#[derive(Subcommand)]
pub enum ClaimCommand {
    /// Record a claim for an old (over 12 months), lost or unreadable ticket.
    File(Box<FileArgs>),
    /// A claim's state, and the tickets that match it.
    Show { id: i64 },
    /// Save the claim as the printable form (PDF) for the player to sign and post.
    Form {
        id: i64,
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Args)]
pub struct FileArgs {
    /// old, lost or mutilated.
    #[arg(long, value_parser = reason)]
    reason: ClaimReason,
    #[arg(long)]
    name: String,
    /// The postal address; "\n" or "," separates its lines.
    #[arg(long)]
    address: String,
    #[arg(long)]
    phone: String,
    /// Where the ticket was bought (a site or terminal).
    #[arg(long)]
    place: String,
    /// When it was bought: YYYY-MM-DD.
    #[arg(long)]
    date: String,
    /// About which game.
    #[arg(long)]
    game: Option<i64>,
    /// How many games the ticket was for.
    #[arg(long)]
    games: Option<i32>,
    /// The serial, if the player knows it.
    #[arg(long)]
    serial: Option<String>,
    /// The numbers the player remembers playing, e.g. "3 17 42".
    #[arg(long, value_parser = remembered_numbers)]
    numbers: Option<Remembered>,
    /// An amount the player remembers, in dollars: what the ticket cost, or what it won.
    #[arg(long, value_parser = crate::entry::parse_cents)]
    amount: Option<i64>,
    #[arg(long, default_value = "")]
    details: String,
}

/// The numbers a player remembers playing.
#[derive(Clone, Debug)]
pub struct Remembered(Vec<u8>);

/// "3 17 42" (or "3,17,42") as the numbers a player remembers; the server checks each.
fn remembered_numbers(text: &str) -> Result<Remembered, String> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.parse::<u8>()
                .map_err(|_| format!("{w:?}: the numbers are 1 to 80"))
        })
        .collect::<Result<Vec<u8>, String>>()
        .map(Remembered)
}

/// What a claim command did: the server's answer, and its words for the writer.
pub enum Done {
    Shown(Box<Claim>, String),
    Saved(PathBuf),
}

pub fn run(client: &Client, command: &ClaimCommand) -> Result<Done, CallError> {
    match command {
        ClaimCommand::File(a) => {
            let form = ClaimForm {
                reason: a.reason,
                claimant_name: a.name.clone(),
                postal_address: a.address.replace(", ", "\n"),
                phone: a.phone.clone(),
                purchase_place: a.place.clone(),
                purchase_date: a.date.clone(),
                approx_game: a.game,
                games: a.games,
                other_details: a.details.clone(),
                serial: a.serial.clone(),
                voucher_code: None,
                voucher_amount_cents: None,
                numbers: a.numbers.clone().map(|r| r.0),
                amount_cents: a.amount,
            };
            let claim: Claim = client.post("/api/v1/claims", &form)?;
            let text = describe(&claim);
            Ok(Done::Shown(Box::new(claim), text))
        }
        ClaimCommand::Show { id } => {
            let claim: Claim = client.get(&format!("/api/v1/claims/{id}"))?;
            let text = describe(&claim);
            Ok(Done::Shown(Box::new(claim), text))
        }
        ClaimCommand::Form { id, out } => {
            let pdf = client.get_bytes(&format!("/api/v1/claims/{id}/form.pdf"))?;
            std::fs::write(out, pdf)
                .map_err(|e| CallError::Network(format!("{}: {e}", out.display())))?;
            Ok(Done::Saved(out.clone()))
        }
    }
}

/// Cents as the form shows them (never negative: prizes and payments).
fn dollars(cents: i64) -> String {
    keno_core::Dollars(cents.max(0) as u64).to_string()
}

/// `--reason`: a claim's reason by its name.
fn reason(word: &str) -> Result<ClaimReason, String> {
    ClaimReason::parse(word).ok_or_else(|| format!("{word:?}: give old, lost or mutilated"))
}

pub fn describe(claim: &Claim) -> String {
    let mut lines = vec![format!(
        "CLAIM {} ({}): {} for {}",
        claim.id,
        claim.reason,
        claim.state.to_uppercase(),
        claim.claimant_name,
    )];
    if let Some(serial) = &claim.ticket_serial {
        lines.push(format!("ticket {serial}"));
    }
    if let Some(why) = &claim.decision_reason {
        lines.push(format!("inspector: {why}"));
    }
    if claim.state == "submitted" {
        lines.push(format!(
            "{} matching ticket(s); an inspector decides",
            claim.candidates.len()
        ));
        for c in &claim.candidates {
            lines.push(format!(
                "  {}  {} {}  day {}  games {}-{}  owed {}",
                c.serial,
                c.site,
                c.terminal,
                c.keno_day,
                c.first_game,
                c.last_game,
                dollars(c.owed_cents),
            ));
        }
    }
    lines.join("\n") + "\n"
}
