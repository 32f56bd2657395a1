//! `writer-terminal claim ...`: recording a player's Unclaimed Prize Claim Form (rules 13.1,
//! 14; Diagram E) at the counter, seeing where it stands, and printing the form to post.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use crate::client::{CallError, Client};

#[derive(Subcommand)]
pub enum ClaimCommand {
    /// Record a claim for an old (over 12 months), lost or unreadable ticket.
    File(FileArgs),
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
    #[arg(long)]
    reason: String,
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
    #[arg(long, default_value = "")]
    details: String,
}

/// What a claim command did: the server's answer, and its words for the writer.
pub enum Done {
    Shown(Value, String),
    Saved(PathBuf),
}

pub fn run(client: &Client, command: &ClaimCommand) -> Result<Done, CallError> {
    match command {
        ClaimCommand::File(a) => {
            let mut form = json!({
                "reason": a.reason, "claimant_name": a.name,
                "postal_address": a.address.replace(", ", "\n"), "phone": a.phone,
                "purchase_place": a.place, "purchase_date": a.date,
                "approx_game": a.game, "games": a.games, "other_details": a.details,
            });
            if let Some(serial) = &a.serial {
                form["serial"] = json!(serial);
            }
            let claim = client.post("/api/v1/claims", &form)?;
            let text = describe(&claim);
            Ok(Done::Shown(claim, text))
        }
        ClaimCommand::Show { id } => {
            let claim = client.get(&format!("/api/v1/claims/{id}"))?;
            let text = describe(&claim);
            Ok(Done::Shown(claim, text))
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

fn describe(claim: &Value) -> String {
    let mut lines = vec![format!(
        "CLAIM {} ({}): {} for {}",
        claim["id"],
        claim["reason"].as_str().unwrap_or("?"),
        claim["state"].as_str().unwrap_or("?").to_uppercase(),
        claim["claimant_name"].as_str().unwrap_or("?"),
    )];
    if let Some(serial) = claim["ticket_serial"].as_str() {
        lines.push(format!("ticket {serial}"));
    }
    if let Some(why) = claim["decision_reason"].as_str() {
        lines.push(format!("inspector: {why}"));
    }
    let candidates = claim["candidates"].as_array().cloned().unwrap_or_default();
    if claim["state"] == "submitted" {
        lines.push(format!(
            "{} matching ticket(s); an inspector decides",
            candidates.len()
        ));
        for c in &candidates {
            lines.push(format!(
                "  {}  {} {}  day {}  games {}-{}  owed {}",
                c["serial"].as_str().unwrap_or("?"),
                c["site"].as_str().unwrap_or("?"),
                c["terminal"].as_str().unwrap_or("?"),
                c["keno_day"].as_str().unwrap_or("?"),
                c["first_game"],
                c["last_game"],
                dollars(c["owed_cents"].as_i64().unwrap_or(0)),
            ));
        }
    }
    lines.join("\n") + "\n"
}
