//! The server's answers as the writer reads them, on the counter screen and the command line
//! alike: a checked ticket, recent results, a payment, a cancellation.

use keno_api::games::Game;
use keno_api::set_bets::SetBet;
use keno_api::staff::{Session, Shift, ShiftState};
use keno_api::tickets::{
    Cancellation, Collect, GameLine, GameStanding, Payment, SalePayment, Ticket, TicketDetail,
};
use keno_api::vouchers::{CashOut, Voucher};
use keno_api::Refusal;
use keno_core::Dollars;

/// Signed cents as dollars: "-$5.00" for money out.
fn signed(c: i64) -> String {
    if c < 0 {
        format!("-{}", cents(c.unsigned_abs()))
    } else {
        cents(c)
    }
}

/// An instant the server sent (RFC 3339) on this terminal's clock: "25/11/26 21:45".
pub fn local_time(at: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(at).map_or_else(
        |_| at.to_string(),
        |t| {
            t.with_timezone(&chrono::Local)
                .format("%d/%m/%y %H:%M")
                .to_string()
        },
    )
}

/// Cents as dollars; a negative amount (never sent) reads as nothing.
pub fn cents(c: impl TryInto<u64>) -> String {
    Dollars(c.try_into().unwrap_or(0)).to_string()
}

/// A checked ticket: its status, each game as the server's one rule has it (played, won and
/// when it is paid, invalidated or cancelled with its refund), what it won, what is payable now
/// or why not, and how it was paid.
pub fn ticket(t: &TicketDetail) -> Vec<String> {
    // What it came to first: on a small screen the games run off the bottom, not this.
    let mut out = vec![
        format!("TICKET {}  {}", t.ticket.serial, status(t)),
        format!("WON {}   {}", cents(t.won_cents), payable_words(t)),
    ];
    for line in &t.lines {
        let catches: Vec<String> = t
            .results
            .iter()
            .find(|r| r.game == line.game)
            .map(|r| {
                r.ways
                    .iter()
                    .map(|w| format!("{}/{}", w.catch, w.spots))
                    .collect()
            })
            .unwrap_or_default();
        let (word, amount) = game_words(line);
        out.push(format!(
            "GAME {:<8} {word:<11} {:<16} {amount}",
            line.game,
            catches.join(" "),
        ));
    }
    if t.cheque {
        out.push("MAJOR PRIZE: PAID BY CHEQUE (rule 12.2)".into());
    }
    if let Some(h) = &t.hand_pay {
        let cheque = h
            .cheque_number
            .as_deref()
            .map_or(String::new(), |c| format!(", CHEQUE No. {c}"));
        out.push(format!(
            "HAND-PAY TO {} ({} {}){cheque}",
            h.claimant_name,
            h.id_kind.to_uppercase(),
            h.id_number
        ));
    }
    out
}

/// One game's word and what it came to (rules 8, 11.5, 13.1, 17.2; general rule 18.2).
fn game_words(line: &GameLine) -> (&'static str, String) {
    let when = match (line.collect, line.after_game) {
        (Some(Collect::Now), _) => "PAYABLE".to_string(),
        // Rule 11.5: paid once, after the ticket's last game.
        (Some(Collect::AfterGame), Some(n)) => format!("PAID AFTER GAME {n}"),
        (Some(Collect::AfterGame), None) => "PAID AFTER THE LAST GAME".to_string(),
        (Some(Collect::Paid), _) => "PAID".to_string(),
        (Some(Collect::ByClaim), _) => "BY CLAIM FORM".to_string(),
        (Some(Collect::Withheld), _) => "WITHHELD".to_string(),
        (None, _) => String::new(),
    };
    let refund = line.refund_cents.map(cents);
    match line.standing {
        GameStanding::Won => ("WON", format!("{} {when}", cents(line.prize_cents))),
        GameStanding::Invalidated => (
            "INVALIDATED",
            format!("REFUND {} {when}", refund.unwrap_or_default()),
        ),
        GameStanding::Cancelled => (
            "CANCELLED",
            refund.map_or("REFUNDED WITH THE TICKET".into(), |r| {
                format!("REFUNDED {r}")
            }),
        ),
        GameStanding::NoPrize => ("NO PRIZE", String::new()),
        GameStanding::Drawing => ("DRAWING", String::new()),
        GameStanding::ToCome => ("TO COME", String::new()),
        GameStanding::Excluded => ("VOIDED", String::new()),
    }
}

/// What a pay would do now, or why it would not; how a paid ticket was paid.
pub fn payable_words(t: &TicketDetail) -> String {
    let Some(code) = &t.not_payable else {
        return format!("PAYABLE {}", cents(t.payable_cents));
    };
    match code.refusal() {
        Some(Refusal::AlreadyPaid) => {
            let how = t.ticket.pay_method.as_deref().map_or("", paid_how);
            let when = t
                .ticket
                .paid_at
                .as_deref()
                .map_or(String::new(), |at| format!(" ON {}", local_time(at)));
            format!("PAID {}{how}{when}", cents(t.ticket.paid_cents))
        }
        Some(Refusal::NotSettled) => match t.lines.iter().find_map(|l| l.after_game) {
            Some(n) => format!("PAYABLE AFTER GAME {n}"),
            None => "NOTHING PAYABLE YET".into(),
        },
        Some(Refusal::NoPrize) => "NOTHING TO PAY".into(),
        Some(Refusal::Cancelled) => format!("CANCELLED: REFUNDED {}", cents(t.ticket.refund_cents)),
        Some(Refusal::Voided) => "VOIDED: PRIZES WITHHELD (rule 17.2)".into(),
        Some(Refusal::ClaimRequired) => {
            "NOT PAID AT A TERMINAL: UNCLAIMED PRIZE CLAIM FORM (rule 13.1)".into()
        }
        _ => format!("NOT PAYABLE ({code})"),
    }
}

/// A ticket's `pay_method` in words: how it was paid.
pub fn paid_how(method: &str) -> &'static str {
    match method {
        "cash" => " IN CASH",
        "cheque" => " BY CHEQUE",
        "voucher" => " AS A VOUCHER",
        "tender" => " TENDERED FOR A SALE",
        "claim_cheque" => " BY CHEQUE ON A CLAIM FORM",
        "cash_and_cheque" => " IN CASH AND BY CHEQUE",
        "voucher_and_cheque" => " AS A VOUCHER AND BY CHEQUE",
        // A method a newer server names: the ticket says "PAID" and the amount.
        _ => "",
    }
}

/// What the writer may do with a checked ticket, for the status line: `p` only when a pay would
/// pay, `x` only while it has a game to come.
pub fn ticket_actions(t: &TicketDetail) -> String {
    let pays = t.not_payable.is_none() && t.payable_cents > 0;
    let cancels =
        t.ticket.status == "active" && t.lines.iter().any(|l| l.standing == GameStanding::ToCome);
    match (pays, cancels) {
        (true, true) => format!("p pays {}, x cancels this ticket", cents(t.payable_cents)),
        (true, false) => format!("p pays {}", cents(t.payable_cents)),
        (false, true) => format!("{}; x cancels its games to come", payable_words(t)),
        (false, false) => format!("{}: nothing to pay or cancel", payable_words(t)),
    }
}

/// The ticket's status as the writer must read it: a ticket whose later games were cancelled
/// (rule 8.2) is still "active" on the server for the games it plays, but is not the ticket it
/// was sold as.
fn status(t: &TicketDetail) -> String {
    ticket_status(&t.ticket)
}

/// A ticket's status in the panel's words, a partial cancellation said.
fn ticket_status(t: &Ticket) -> String {
    let status = t.status.to_uppercase();
    match (status.as_str(), t.cancelled_games.is_empty()) {
        (_, true) | ("CANCELLED", _) => status,
        ("ACTIVE", false) => "PART CANCELLED".into(),
        (_, false) => format!("{status}, PART CANCELLED"),
    }
}

/// A terminal's last sales, newest first, one a line: number, serial, games, total, status.
pub fn recent(sold: &[Ticket]) -> Vec<String> {
    if sold.is_empty() {
        return vec!["NO SALES YET AT THIS TERMINAL".into()];
    }
    let mut out = vec![format!(
        "{:<7} {:<20}  {:<13} {:>10}  STATUS",
        "No.", "SERIAL", "GAMES", "TOTAL"
    )];
    for t in sold {
        let games = if t.first_game == t.last_game {
            t.first_game.to_string()
        } else {
            format!("{}-{}", t.first_game, t.last_game)
        };
        let status = ticket_status(t);
        out.push(format!(
            "{:06}  {:<20}  {games:<13} {:>10}  {status}",
            t.ticket_number,
            t.serial,
            cents(t.total_cents)
        ));
    }
    out
}

/// Consecutive games as "5-10", or "5" for one game.
pub fn game_range(games: &[i64]) -> String {
    match (games.first(), games.last()) {
        (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
        (Some(a), _) => a.to_string(),
        _ => String::new(),
    }
}

/// The numbers of games from the draw history, newest first.
pub fn results(games: &[Game]) -> Vec<String> {
    games
        .iter()
        .rev()
        .map(|g| {
            let numbers: Vec<String> = g.drawn.iter().map(|n| format!("{n:02}")).collect();
            format!("GAME {:<6} {:<9} {}", g.number, g.state, numbers.join(" "))
        })
        .collect()
}

/// A payment: the line to show, and the slip's rows.
pub fn payment(paid: &Payment) -> (String, Vec<(&'static str, String)>) {
    let amount = cents(paid.paid_cents);
    let method = paid.method.to_uppercase();
    let mut rows = vec![("PAID", amount.clone())];
    // Rule 12.2: the minor wins in cash, the major prizes by cheque: each part on its row.
    if paid.parts.len() > 1 {
        for part in &paid.parts {
            let label = if part.method == "cheque" {
                "BY CHEQUE"
            } else {
                "IN CASH"
            };
            rows.push((label, cents(part.cents)));
        }
        rows.push(("", "MAJOR PRIZES BY CHEQUE (rule 12.2)".to_string()));
        let split = paid
            .parts
            .iter()
            .map(|p| format!("{} {}", cents(p.cents), p.method.to_uppercase()))
            .collect::<Vec<_>>()
            .join(" + ");
        return (format!("PAID {amount}: {split}"), rows);
    }
    rows.push(("BY", method.clone()));
    if method == "CHEQUE" {
        rows.push(("", "MAJOR PRIZE (rule 12.2)".to_string()));
    }
    (format!("PAID {amount} BY {method}"), rows)
}

/// A cancellation: the line to show, and the slip's rows.
pub fn cancellation(c: &Cancellation) -> (String, Vec<(&'static str, String)>) {
    let games = &c.games_cancelled;
    let refund = cents(c.refund_cents);
    let range = game_range(games);
    (
        format!("CANCELLED {} game(s): REFUND {refund}", games.len()),
        vec![("GAMES CANCELLED", range), ("REFUND", refund)],
    )
}

/// What a voucher was issued for, in words ("A DEPOSIT", "WINNING TICKET ...").
pub fn voucher_source(v: &Voucher) -> Option<String> {
    let ticket = v.ticket.as_deref().unwrap_or("");
    match v.source.as_str() {
        "deposit" => Some("A DEPOSIT".to_string()),
        "ticket" => Some(format!("WINNING TICKET {ticket}")),
        "change" => Some(format!("CHANGE OF TICKET {ticket}")),
        _ => None,
    }
}

/// A voucher looked up: what it is, what is left, until when, and where it went.
pub fn voucher(v: &Voucher) -> Vec<String> {
    // A source a newer server names that this terminal does not: its word, as sent.
    let source = voucher_source(v).unwrap_or_else(|| v.source.to_uppercase());
    let mut out = vec![
        format!("VOUCHER {}  {}", v.code, v.status.to_uppercase()),
        format!(
            "AMOUNT {}   BALANCE {}",
            cents(v.amount_cents),
            cents(v.balance_cents)
        ),
        format!(
            "ISSUED KENO DAY {} BY {} (TERMINAL {}, SITE {}) FOR {source}",
            v.keno_day, v.writer, v.terminal, v.site
        ),
        format!("VALID UNTIL {}", v.valid_until),
    ];
    if v.expired {
        out.push("EXPIRED: PAYABLE ONLY BY AN UNCLAIMED PRIZE CLAIM FORM (rule 13.1)".to_string());
    }
    for s in &v.spends {
        out.push(format!(
            "SPENT {} ON TICKET {} ({} LEFT)",
            cents(s.amount_cents),
            s.serial,
            cents(s.remaining_cents)
        ));
    }
    if v.cashed_cents > 0 {
        out.push(format!("CASHED OUT {}", cents(v.cashed_cents)));
    }
    out
}

/// A voucher's balance paid in cash: the line to show, and the slip's rows.
pub fn cash_out(c: &CashOut) -> (String, Vec<(&'static str, String)>) {
    let amount = cents(c.paid_cents);
    (
        format!("PAID {amount} CASH: THE VOUCHER HAS NOTHING LEFT"),
        vec![
            ("PAID", amount),
            ("BY", "CASH".into()),
            ("VOUCHER BALANCE", cents(c.voucher.balance_cents)),
        ],
    )
}

/// How a sale was paid, for the writer: what each tender covered, the cash to take, the change.
/// Nothing for a sale paid in cash.
pub fn sale_payment(payment: &SalePayment) -> Vec<String> {
    if payment.tenders.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for t in &payment.tenders {
        if let Some(code) = &t.voucher {
            out.push(format!(
                "VOUCHER {code} PAYS {} ({} LEFT ON IT)",
                cents(t.covered_cents),
                cents(t.remaining_cents)
            ));
        } else if let Some(serial) = &t.ticket {
            out.push(format!(
                "TICKET {serial} PAYS {} (PAID WHOLE)",
                cents(t.covered_cents)
            ));
        }
    }
    out.push(format!("CASH DUE {}", cents(payment.cash_cents)));
    if let Some(code) = &payment.change_voucher {
        out.push(format!(
            "CHANGE {} AS VOUCHER {code}",
            cents(payment.change_cents)
        ));
    }
    out
}

/// The catalogue of set bets, one set a line: number, name, groups, ways and suggested amount.
/// A group of numbers as every screen and receipt shows it: "03 07 11".
pub fn group_text(group: &[u8]) -> String {
    group
        .iter()
        .map(|n| format!("{n:02}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn set_bets(sets: &[SetBet]) -> Vec<String> {
    if sets.is_empty() {
        return vec!["NO SET BETS ON SALE".into()];
    }
    sets.iter()
        .map(|s| {
            let groups: Vec<String> = s.groups.iter().map(|g| group_text(g)).collect();
            let ways: Vec<String> = s
                .ways
                .iter()
                .map(|w| format!("{}/{:02}", w.count, w.spots))
                .collect();
            let retired = if s.on_sale { "" } else { "  RETIRED" };
            let combine: Vec<String> = s.combine.iter().map(u8::to_string).collect();
            format!(
                "SET {:<4} {:<32} {}  C{}  {}  {}/WAY{retired}",
                s.id,
                s.name,
                groups.join("-"),
                combine.join(","),
                ways.join(" "),
                cents(s.amount_per_way_cents),
            )
        })
        .collect()
}

/// The session of the writer signed on: who, where, and when it ends.
pub fn session(s: &Session) -> Vec<String> {
    let place = match (&s.terminal, &s.site) {
        (Some(t), Some(site)) => format!("  TERMINAL {t}  SITE {site}"),
        _ => String::new(),
    };
    vec![
        format!(
            "SIGNED ON: {} (STAFF {}, {}){place}",
            s.name,
            s.staff_id,
            s.role.as_str().to_uppercase()
        ),
        format!("SINCE {}", local_time(&s.started_at)),
        format!(
            "ENDS AT SIGN-OFF, AFTER {} MIN WITHOUT USE, OR AT {} (END OF THE KENO DAY)",
            s.idle_timeout_seconds.div_ceil(60),
            local_time(&s.expires_at)
        ),
    ]
}

/// Where a shift's drawer stands in a line: what it should hold, and at the close the count
/// and the over/short.
pub fn shift_line(s: &Shift) -> String {
    match (s.state, s.counted_cents, s.over_short_cents) {
        (ShiftState::Open, ..) => format!(
            "SHIFT {} OPEN: SALES {} PAID {} IN DRAWER {} (FLOAT {})",
            s.id,
            cents(s.cash.sales_cash_cents),
            cents(s.cash.prizes_cash_cents),
            signed(s.expected_cents),
            cents(s.float_cents)
        ),
        (state, Some(counted), Some(over_short)) => {
            let waits = if state == ShiftState::AwaitingSignOff {
                ": A SUPERVISOR SIGNS IT OFF"
            } else {
                ""
            };
            format!(
                "SHIFT {} CLOSED: COUNTED {}, EXPECTED {}, {}{waits}",
                s.id,
                cents(counted),
                signed(s.expected_cents),
                over_short_words(over_short)
            )
        }
        _ => format!("SHIFT {} CLOSED", s.id),
    }
}

/// Over/short in words: "BALANCED", "OVER $2.00", "SHORT $8.00".
/// A drawer's count against what it should hold, in words: the shift line's and the close's
/// confirmation's.
pub fn over_short_words(c: i64) -> String {
    match c {
        0 => "BALANCED".into(),
        c if c > 0 => format!("OVER {}", cents(c)),
        c => format!("SHORT {}", cents(c.unsigned_abs())),
    }
}

/// A shift's drawer, as the shift report's first part: the float, each movement, what it
/// should hold, and at the close the count and the over/short.
pub fn shift(s: &Shift) -> Vec<String> {
    let c = &s.cash;
    let row = |label: &str, cents: i64| format!("{label:<36} {:>14}", signed(cents));
    let mut out = vec![
        shift_line(s),
        format!(
            "{}  TERMINAL {}  SITE {}  KENO DAY {}  OPENED {}",
            s.writer,
            s.terminal,
            s.site,
            s.keno_day,
            local_time(&s.opened_at)
        ),
        row("FLOAT (BANK) AT THE OPENING", s.float_cents),
        row("+ CASH FROM SALES", c.sales_cash_cents),
        row("+ VOUCHERS BOUGHT WITH CASH", c.voucher_deposits_cents),
    ];
    if c.tender_change_cents != 0 {
        out.push(row(
            "- CHANGE PAID IN CASH FOR TENDERS",
            c.tender_change_cents,
        ));
    }
    out.extend([
        row("- REFUNDS OF CANCELLATIONS", c.refunds_cents),
        row("- PRIZES PAID IN CASH", c.prizes_cash_cents),
        row("- VOUCHERS CASHED OUT", c.voucher_cash_outs_cents),
        row("= EXPECTED IN THE DRAWER", s.expected_cents),
    ]);
    if let (Some(counted), Some(over_short)) = (s.counted_cents, s.over_short_cents) {
        out.push(row("COUNTED AT THE CLOSE", counted));
        out.push(format!(
            "{:<36} {:>14}",
            "OVER/SHORT",
            over_short_words(over_short)
        ));
    }
    if let Some(by) = &s.signed_off_by {
        out.push(format!("SIGNED OFF BY {by}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use keno_api::tickets::{Schedule, WaysLine};

    #[test]
    fn the_catalogue_one_set_a_line() {
        let way = |count, spots| WaysLine {
            count,
            spots,
            plays_as: Schedule::Standard,
        };
        let sets = [SetBet {
            id: 3,
            name: "Lucky Corners".into(),
            description: None,
            groups: vec![vec![1, 2], vec![9, 10]],
            combine: vec![1, 2],
            ways: vec![way(2, 2), way(1, 4)],
            way_count: 3,
            amount_per_way_cents: 50,
            game_cost_cents: 150,
            on_sale: true,
            created_at: String::new(),
            retired_at: None,
            retired_reason: None,
        }];
        let lines = set_bets(&sets);
        assert_eq!(lines.len(), 1);
        for part in [
            "SET 3",
            "Lucky Corners",
            "01 02-09 10",
            "C1,2",
            "2/02 1/04",
            "$0.50/WAY",
        ] {
            assert!(lines[0].contains(part), "{part} in {}", lines[0]);
        }
        assert_eq!(set_bets(&[]), vec!["NO SET BETS ON SALE"]);
    }

    /// Rule 12.2: a payment in parts prints each part on the slip.
    #[test]
    fn a_payment_in_parts_shows_the_cash_and_the_cheque() {
        use keno_api::tickets::PaymentPart;
        let paid = Payment {
            paid_cents: 28_000,
            method: "cash_and_cheque".into(),
            parts: vec![
                PaymentPart {
                    method: "cash".into(),
                    cents: 7_000,
                },
                PaymentPart {
                    method: "cheque".into(),
                    cents: 21_000,
                },
            ],
        };
        let (line, rows) = payment(&paid);
        assert_eq!(line, "PAID $280.00: $70.00 CASH + $210.00 CHEQUE");
        assert!(
            rows.contains(&("IN CASH", "$70.00".to_string())),
            "{rows:?}"
        );
        assert!(
            rows.contains(&("BY CHEQUE", "$210.00".to_string())),
            "{rows:?}"
        );
        let whole = Payment {
            paid_cents: 300,
            method: "cash".into(),
            parts: Vec::new(),
        };
        assert_eq!(payment(&whole).0, "PAID $3.00 BY CASH");
    }
}
