//! The Unclaimed Prize Claim Form (Diagram E) as a printable PDF, filled in from the claim.

use crate::audit::pdf::{render, Line};

use super::Claim;

/// Cents as the form shows them (never negative: prizes and payments).
fn dollars(cents: i64) -> String {
    keno_core::Dollars(cents.max(0) as u64).to_string()
}

pub fn render_form(claim: &Claim) -> Vec<u8> {
    let mut lines = preamble(claim);
    lines.extend(customer_details(claim));
    lines.extend(ticket_details(claim));
    lines.extend(record(claim));
    lines.extend(matching_tickets(claim));
    lines.extend(signatures());
    render(
        "Unclaimed Prize Claim Form",
        &format!("Claim {}", claim.id),
        &lines,
    )
}

/// The form's title and its words to the player, then which claim this is.
fn preamble(claim: &Claim) -> Vec<Line> {
    vec![
        Line::Title("KENO - UNCLAIMED PRIZE CLAIM FORM".into()),
        Line::Text(
            "This form is filled out by the player when claiming an old ticket (more than twelve"
                .into(),
        ),
        Line::Text(
            "months old) or a prize on a lost or mutilated ticket (rules 13, 14). The details are"
                .into(),
        ),
        Line::Text(
            "scrutinised by a Government Casino Inspector; payment is at the Inspector's discretion"
                .into(),
        ),
        Line::Text("and is made by cheque to the address below (rule 13.5).".into()),
        Line::Blank,
        Line::Heading(format!("CLAIM {}  ({})", claim.id, claim.reason.to_uppercase())),
    ]
}

fn customer_details(claim: &Claim) -> Vec<Line> {
    let mut lines = vec![
        Line::Heading("CUSTOMER DETAILS".into()),
        Line::Text(format!("Name:            {}", claim.claimant_name)),
    ];
    for (i, part) in claim.postal_address.lines().enumerate() {
        let label = if i == 0 {
            "Postal address:  "
        } else {
            "                 "
        };
        lines.push(Line::Text(format!("{label}{part}")));
    }
    lines.push(Line::Text(format!("Phone:           {}", claim.phone)));
    lines
}

fn ticket_details(claim: &Claim) -> Vec<Line> {
    let mut lines = vec![
        Line::Heading("TICKET DETAILS".into()),
        Line::Text(format!("Where purchased:  {}", claim.purchase_place)),
        Line::Text(format!("Date purchased:   {}", claim.purchase_date)),
        Line::Text(format!(
            "Approximate game: {}",
            claim.approx_game.map_or("-".into(), |g| g.to_string())
        )),
        Line::Text(format!(
            "Number of games:  {}",
            claim.games.map_or("-".into(), |g| g.to_string())
        )),
        Line::Text(format!(
            "Serial number:    {}",
            claim.serial.as_deref().unwrap_or("not known")
        )),
        Line::Text(format!("Other details:    {}", claim.other_details)),
    ];
    // Rules 13.1, 13.3: a claim for a voucher names it, or a lost one's amount.
    if claim.voucher_code.is_some() || claim.voucher_amount_cents.is_some() {
        lines.push(Line::Text(format!(
            "Voucher:          {} {}",
            claim.voucher_code.as_deref().unwrap_or("code not known"),
            claim
                .voucher_amount_cents
                .map_or(String::new(), |c| format!(
                    "for {}",
                    keno_core::Dollars(c as u64)
                ))
        )));
    }
    lines
}

/// What became of the claim: recorded, the ticket chosen, decided, paid.
fn record(claim: &Claim) -> Vec<Line> {
    let mut lines = vec![
        Line::Heading("RECORD".into()),
        Line::Text(format!(
            "Recorded {} by {}",
            claim.recorded_at, claim.recorded_by
        )),
        Line::Text(format!("State: {}", claim.state.to_uppercase())),
    ];
    if let Some(serial) = &claim.ticket_serial {
        lines.push(Line::Text(format!(
            "Ticket chosen by the Inspector: {serial}"
        )));
    }
    if let Some(code) = &claim.approved_voucher {
        lines.push(Line::Text(format!(
            "Voucher chosen by the Inspector: {code}"
        )));
    }
    if let (Some(by), Some(at)) = (&claim.decided_by, &claim.decided_at) {
        lines.push(Line::Text(format!(
            "Decided {at} by {by}: {}",
            claim.decision_reason.as_deref().unwrap_or("")
        )));
    }
    if let Some(cents) = claim.paid_cents {
        lines.push(Line::Text(format!(
            "Paid {} by cheque {} on {}",
            dollars(cents),
            claim.cheque_reference.as_deref().unwrap_or("-"),
            claim.paid_at.as_deref().unwrap_or("-")
        )));
    }
    lines
}

/// The candidate tickets the record holds for the claim, if any.
fn matching_tickets(claim: &Claim) -> Vec<Line> {
    if claim.candidates.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![
        Line::Heading("TICKETS THAT MATCH".into()),
        Line::Columns("serial                site     term  Keno Day    games        owed".into()),
    ];
    for c in &claim.candidates {
        lines.push(Line::Text(format!(
            "{:<21} {:<8} {:<5} {:<11} {:>5}-{:<5} {:>10}",
            c.serial,
            c.site,
            c.terminal,
            c.keno_day,
            c.first_game,
            c.last_game,
            dollars(c.owed_cents)
        )));
    }
    lines
}

fn signatures() -> [Line; 7] {
    [
        Line::Blank,
        Line::Text("Claimant's signature: ______________________   Date: ____________".into()),
        Line::Blank,
        Line::Text("Inspector:            ______________________   Date: ____________".into()),
        Line::Blank,
        Line::Text("Please forward the completed form to CASINO SURVEILLANCE AUTHORITY,".into()),
        Line::Text("20 ALLARA ST, CIVIC, A.C.T.".into()),
    ]
}
