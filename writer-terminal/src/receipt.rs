//! The receipt ticket laid out as Diagram C: the one model every printer (text, ESC/POS, PDF)
//! renders. Built from the server's record of the ticket (rule 5.3).

use std::sync::OnceLock;

use chrono::{DateTime, Local};
use keno_api::tickets::{
    Collect, GameResult, GameStanding, SalePayment, Schedule, Ticket, TicketDetail,
};
use keno_api::vouchers::Voucher;
use keno_core::{Dollars, RuleSet};

/// Everything Diagram C prints, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub casino: String,
    pub bet: String,
    pub date: String,
    pub time: String,
    pub operator: String,
    pub ticket_number: String,
    pub terminal: String,
    pub site: String,
    /// Numbers marked on the 80-number grid.
    pub marked: Vec<u8>,
    /// "06 45-36 80": way groups separated by "-".
    pub selections: String,
    /// A set bet's set (rule 6.3(h)): "LUCKY CORNERS (RANDOM)".
    pub set: Option<String>,
    pub amount_per_way: String,
    pub first_game: String,
    pub last_game: String,
    pub games: String,
    /// Rule 1(f): the ticket plays 50 or more consecutive games.
    pub keno_to_go: bool,
    /// Games the multi-game discount does not charge (rule 6.2(a),(b)).
    pub free_games: u32,
    pub game_cost: String,
    pub ticket_total: String,
    pub serial: String,
    /// "1/04 $3" lines of the WAYS SPOTS AMOUNT table.
    pub ways: Vec<String>,
    pub reprint: bool,
    /// The ticket's status on the server: a reprint of a cancelled or paid ticket says so.
    pub status: String,
    /// How it was paid when vouchers or winning tickets paid some of it (rule 6.1).
    pub payment: Vec<String>,
    /// Games that will never be played, and their refunds: cancelled (rule 8) or invalidated
    /// (rule 17.3). A reprint lists them, so the paper agrees with the server's record.
    pub closed: Vec<(String, String)>,
    /// Rule 13.1: the last day a writer terminal pays it, dd/mm/yyyy (empty if the ticket's
    /// Keno Day did not read).
    pub claim_by: String,
}

/// Cents as dollars; a negative amount (never sent) reads as nothing.
fn dollars(c: i64) -> Dollars {
    Dollars(u64::try_from(c).unwrap_or(0))
}

/// A schedule as the receipt names it: "SPECIAL 1", "JACKPOT".
pub(crate) fn schedule_name(s: Schedule) -> String {
    s.as_str().replace("special", "SPECIAL ").to_uppercase()
}

/// Rule 1(f) from the ticket as sent: the server's word, or for a server that does not say,
/// the built-in rule set's count (the terminal never holds the operator's rule set).
fn is_keno_to_go(ticket: &Ticket) -> bool {
    static BUILT_IN: OnceLock<RuleSet> = OnceLock::new();
    ticket.keno_to_go.unwrap_or_else(|| {
        let games = u32::try_from(ticket.games).unwrap_or(0);
        BUILT_IN
            .get_or_init(RuleSet::act_1992)
            .games()
            .is_keno_to_go(games)
    })
}

/// Rule 13.1 (as INTERPRETATION.md reads it): a terminal pays a prize until twelve months after
/// the Keno Day of the ticket's last game. At the sale that day is the ticket's own Keno Day
/// for every game played that day; a multi-game ticket whose last games fall on a later Keno
/// Day is payable longer than printed, never less (the check shows the exact date once its
/// last game is played). So the paper never promises a day the terminal refuses.
fn claim_by(keno_day: &str) -> String {
    match keno_day.parse::<keno_core::KenoDay>() {
        Ok(day) => {
            let last = keno_core::terminal_deadline(day);
            format!("{:02}/{:02}/{:04}", last.day(), last.month(), last.year())
        }
        Err(_) => String::new(),
    }
}

/// Rule 6.2(a),(b): the games of the ticket its total does not charge for.
fn free_games(ticket: &Ticket) -> u32 {
    u32::try_from(ticket.games.saturating_sub(ticket.charged_games)).unwrap_or(0)
}

/// The games a ticket will never play, each with its refund: the games cancelled (rule 8, one
/// refund for all of them) and each game invalidated (rule 17.3, its share of the charge).
fn closed_games(ticket: &Ticket, results: &[GameResult]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !ticket.cancelled_games.is_empty() {
        let plural = if ticket.cancelled_games.len() > 1 {
            "S"
        } else {
            ""
        };
        out.push((
            format!(
                "CANCELLED GAME{plural} {},",
                crate::views::game_range(&ticket.cancelled_games)
            ),
            format!("REFUND {}", dollars(ticket.refund_cents)),
        ));
    }
    for r in results.iter().filter(|r| r.state == "invalidated") {
        out.push((
            format!("GAME {} INVALIDATED,", r.game),
            format!("REFUND {}", Dollars(r.refund_cents)),
        ));
    }
    out
}

/// What a reprint says the ticket came to, from the server's one rule (keno-core `standing`):
/// the games cancelled (rule 8) and invalidated (general rule 18.2) with their refunds, each game
/// won and when it is paid (rule 11.5), and how and when a paid ticket was paid.
fn standing_rows(detail: &TicketDetail) -> Vec<(String, String)> {
    // A server older than `lines`: the games closed, from the results.
    if detail.lines.is_empty() {
        return closed_games(&detail.ticket, &detail.results);
    }
    let mut out = closed_games(&detail.ticket, &[]);
    for l in &detail.lines {
        let when = match (l.collect, l.after_game) {
            (Some(Collect::AfterGame), Some(n)) => format!(" AFTER GAME {n}"),
            (Some(Collect::Paid), _) => " PAID".into(),
            (Some(Collect::ByClaim), _) => " BY CLAIM FORM".into(),
            (Some(Collect::Withheld), _) => " WITHHELD".into(),
            _ => String::new(),
        };
        match (l.standing, l.refund_cents) {
            (GameStanding::Invalidated, Some(refund)) => out.push((
                format!("GAME {} INVALIDATED,", l.game),
                format!("REFUND {}", Dollars(refund)),
            )),
            (GameStanding::Won, _) => out.push((
                format!("GAME {} WON,", l.game),
                format!("{}{when}", Dollars(l.prize_cents)),
            )),
            _ => {}
        }
    }
    let t = &detail.ticket;
    if let (Some(method), Some(at)) = (&t.pay_method, &t.paid_at) {
        let how = crate::views::paid_how(method).trim_start().to_string();
        out.push((format!("PAID {}", dollars(t.paid_cents)), how));
        out.push(("ON".into(), crate::views::local_time(at)));
    }
    out
}

/// "$3" for whole dollars, "$0.50" otherwise, as the WAYS SPOTS AMOUNT column shows it.
fn short_dollars(c: u64) -> String {
    if c.is_multiple_of(100) {
        format!("${}", c / 100)
    } else {
        Dollars(c).to_string()
    }
}

impl Receipt {
    /// The receipt of a ticket as the server returned it, with how its sale was paid.
    pub fn from_ticket(ticket: &Ticket, payment: &SalePayment, casino: &str) -> Receipt {
        let issued = DateTime::parse_from_rfc3339(&ticket.issued_at)
            .ok()
            .map(|t| t.with_timezone(&Local));
        let mut marked: Vec<u8> = ticket.groups.iter().flatten().copied().collect();
        marked.sort_unstable();
        let selections = ticket
            .groups
            .iter()
            .map(|g| crate::views::group_text(g))
            .collect::<Vec<_>>()
            .join("-");
        let amount = u64::try_from(ticket.amount_per_way_cents).unwrap_or(0);
        let mut bet = ticket.bet_type.replace('_', " ").to_uppercase();
        if ticket.schedule != Schedule::Standard {
            bet = format!("{bet} {}", schedule_name(ticket.schedule));
        }
        let ways = ticket
            .ways
            .iter()
            .map(|l| {
                let mut line = format!("{}/{:02} {}", l.count, l.spots, short_dollars(amount));
                // A standard 6- or 8-spot way plays Special 1: the receipt says so.
                if l.plays_as != ticket.schedule {
                    line.push_str(&format!(" ({})", schedule_name(l.plays_as)));
                }
                line
            })
            .collect();
        let set = ticket.set_bet.as_ref().map(|s| {
            format!(
                "{} ({})",
                s.name.to_uppercase(),
                s.mode.as_str().to_uppercase()
            )
        });
        Receipt {
            casino: casino.to_string(),
            bet: format!("BET-{bet}"),
            date: issued.map_or_else(String::new, |t| t.format("%d/%m/%y").to_string()),
            time: issued.map_or_else(String::new, |t| t.format("%H:%M").to_string()),
            operator: ticket.writer.clone(),
            ticket_number: format!("{:06}", ticket.ticket_number.max(0)),
            terminal: ticket.terminal.clone(),
            site: ticket.site.clone(),
            marked,
            selections,
            set,
            amount_per_way: Dollars(amount).to_string(),
            first_game: ticket.first_game.to_string(),
            last_game: ticket.last_game.to_string(),
            games: format!("{:03}", ticket.games.max(0)),
            keno_to_go: is_keno_to_go(ticket),
            free_games: free_games(ticket),
            game_cost: dollars(ticket.game_cost_cents).to_string(),
            ticket_total: dollars(ticket.total_cents).to_string(),
            serial: ticket.serial.clone(),
            ways,
            reprint: false,
            status: ticket.status.clone(),
            payment: payment_lines(payment),
            closed: closed_games(ticket, &[]),
            claim_by: claim_by(&ticket.keno_day),
        }
    }

    /// The receipt of a ticket as the server's full view has it now: with the games cancelled
    /// and invalidated since the sale, for a reprint.
    pub fn from_detail(detail: &TicketDetail, casino: &str) -> Receipt {
        Receipt {
            closed: standing_rows(detail),
            ..Receipt::from_ticket(&detail.ticket, &detail.payment, casino)
        }
    }

    /// The receipt as printed lines, top to bottom: one layout for every printer.
    pub fn lines(&self) -> Vec<Line> {
        let mut out = Vec::new();
        self.heading(&mut out);
        self.grid(&mut out);
        self.games_and_cost(&mut out);
        out.push(Line::Barcode(self.serial.clone()));
        out.push(Line::Text(vec![Span::bold("WAYS SPOTS AMOUNT".into())]));
        for w in &self.ways {
            out.push(plain(w.clone()));
        }
        if !self.payment.is_empty() {
            out.push(Line::Text(vec![Span::bold("PAID BY".into())]));
            for p in &self.payment {
                out.push(plain(p.clone()));
            }
        }
        out
    }

    /// A reprint's marks, then Diagram C's header: CASINO KENO, PLAY YOUR GAME and the casino on
    /// the left; RECEIPT TICKET, the bet type and the date and time on the right.
    fn heading(&self, out: &mut Vec<Line>) {
        if self.reprint {
            out.push(bold(format!("{:^WIDTH$}", "*** REPRINT ***")));
        }
        if self.reprint && (self.status == "cancelled" || self.status == "paid") {
            let note = format!("*** TICKET {} ***", self.status.to_uppercase());
            out.push(bold(format!("{note:^WIDTH$}")));
        }
        out.push(bold(format!(
            "{:<24}{:>24}",
            "CASINO KENO", "RECEIPT TICKET"
        )));
        two(
            out,
            Span::plain("PLAY YOUR GAME".into()),
            Span::bold(self.bet.clone()),
        );
        two(
            out,
            Span::plain(self.casino.clone()),
            Span::plain(format!("DATE: {} TIME: {}", self.date, self.time)),
        );
        out.push(plain(format!("OPERATOR NAME: {}", self.operator)));
        out.push(plain(format!(
            "No. {}, TERMINAL {}, SITE {}",
            self.ticket_number, self.terminal, self.site
        )));
    }

    /// The 80-number grid with the marked numbers reversed, then the set and selections.
    fn grid(&self, out: &mut Vec<Line>) {
        for row in 0..8u8 {
            let cells = (1..=10u8)
                .map(|col| {
                    let n = row * 10 + col;
                    Span {
                        text: format!(" {n:02} "),
                        bold: false,
                        reverse: self.marked.contains(&n),
                    }
                })
                .collect();
            out.push(Line::Text(cells));
        }
        if let Some(set) = &self.set {
            out.push(Line::Text(vec![
                Span::plain("SET: ".into()),
                Span::bold(set.clone()),
            ]));
        }
        out.push(Line::Text(vec![
            Span::plain("SELECTION(S): ".into()),
            Span::bold(self.selections.clone()),
        ]));
    }

    /// Amount per way, first and last game, the games (Keno To Go and the free games of the
    /// discount with them), the game cost and the total; on a reprint, the games closed since.
    fn games_and_cost(&self, out: &mut Vec<Line>) {
        two(
            out,
            Span::plain(format!("AMOUNT/WAY {}", self.amount_per_way)),
            Span::plain(format!("FIRST GAME {}", self.first_game)),
        );
        two(
            out,
            Span::plain(format!("SERIAL No. {}", self.serial)),
            Span::plain(format!("LAST GAME {}", self.last_game)),
        );
        // Rule 1(f): a Keno To Go ticket is cancelled only whole, before its first game (8.2);
        // the player and the writer see at once which kind of ticket it is.
        if self.keno_to_go {
            out.push(bold(format!("{:>WIDTH$}", "KENO TO GO")));
        }
        out.push(plain(format!(
            "{:>WIDTH$}",
            format!("GAMES {}", self.games)
        )));
        // Rule 6.2(a),(b): the games played but not charged for.
        if self.free_games > 0 {
            let free = format!("FREE GAMES {}", self.free_games);
            out.push(plain(format!("{free:>WIDTH$}")));
        }
        out.push(plain(format!(
            "{:>WIDTH$}",
            format!("GAME COST {}", self.game_cost)
        )));
        out.push(bold(format!(
            "{:>WIDTH$}",
            format!("TICKET TOTAL {}", self.ticket_total)
        )));
        // Rule 13.1: the day by which the player must claim it at a terminal.
        if !self.claim_by.is_empty() {
            out.push(plain(format!(
                "{:>WIDTH$}",
                format!("CLAIM BY {}", self.claim_by)
            )));
        }
        if self.reprint {
            for (games, refund) in &self.closed {
                two(out, Span::bold(games.clone()), Span::bold(refund.clone()));
            }
        }
    }

    /// The receipt as plain text, 48 columns (a thermal printer's width); marked numbers in
    /// brackets where the printer prints them white on black.
    pub fn to_text(&self) -> String {
        to_text(&self.lines())
    }
}

/// Printed lines as plain text (barcodes left out: their digits are printed above them).
pub fn to_text(lines: &[Line]) -> String {
    let mut out = String::new();
    for line in lines {
        if let Line::Text(spans) = line {
            for span in spans {
                out.push_str(&span.as_text());
            }
            out.push('\n');
        }
    }
    out
}

/// A sale's `payment` as the receipt prints it: each voucher or ticket tendered and what it
/// covered, the cash, the change voucher. Nothing for a sale paid in cash.
pub fn payment_lines(payment: &SalePayment) -> Vec<String> {
    if payment.tenders.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for t in &payment.tenders {
        let covered = dollars(t.covered_cents);
        if let Some(code) = &t.voucher {
            out.push(format!(
                "VOUCHER {code} {covered:>10}\n  LEFT ON IT {}",
                dollars(t.remaining_cents)
            ));
        } else if let Some(serial) = &t.ticket {
            out.push(format!("TICKET {serial} {covered:>10}"));
        }
    }
    out.push(format!(
        "CASH {:>43}",
        dollars(payment.cash_cents).to_string()
    ));
    if let Some(code) = &payment.change_voucher {
        out.push(format!(
            "CHANGE AS VOUCHER {:>30}\n  No. {code}",
            dollars(payment.change_cents).to_string()
        ));
    }
    // One printed line each.
    out.iter()
        .flat_map(|l| l.lines().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// A voucher (rule 1(n)) as printed: what it is for, its amount and balance, its Keno Day and
/// the last day it is usable at a writer terminal (rule 13.1), and its code as text and as a
/// barcode (ITF, like a ticket's serial).
pub fn voucher(v: &Voucher, casino: &str, title: &str) -> Vec<Line> {
    let issued = DateTime::parse_from_rfc3339(&v.issued_at)
        .ok()
        .map(|t| t.with_timezone(&Local));
    let mut out = vec![Line::Text(vec![Span::bold(format!(
        "{:<24}{:>24}",
        "CASINO KENO", title
    ))])];
    two(
        &mut out,
        Span::plain(casino.to_string()),
        Span::plain(issued.map_or_else(String::new, |t| {
            format!("DATE: {} TIME: {}", t.format("%d/%m/%y"), t.format("%H:%M"))
        })),
    );
    let plain = |t: String| Line::Text(vec![Span::plain(t)]);
    out.push(plain(format!("OPERATOR NAME: {}", v.writer)));
    out.push(plain(format!("TERMINAL {}, SITE {}", v.terminal, v.site)));
    out.push(plain(match crate::views::voucher_source(v) {
        Some(source) if v.source == "deposit" => format!("FOR: {source} FOR FUTURE GAMING"),
        Some(source) => format!("FOR: {source}"),
        None => String::new(),
    }));
    let row = |label: &str, value: String, bold: bool| {
        Line::Text(vec![
            Span::plain(format!("{label:<20}")),
            Span {
                text: format!("{value:>28}"),
                bold,
                reverse: false,
            },
        ])
    };
    out.push(row("AMOUNT", dollars(v.amount_cents).to_string(), false));
    out.push(row("BALANCE", dollars(v.balance_cents).to_string(), true));
    out.push(row("KENO DAY", v.keno_day.clone(), false));
    out.push(row("VALID UNTIL", v.valid_until.clone(), true));
    if v.status != "active" || v.expired {
        let state = if v.expired {
            "EXPIRED: CLAIM FORM ONLY".to_string()
        } else {
            v.status.to_uppercase()
        };
        out.push(row("STATUS", state, true));
    }
    out.push(plain(format!("VOUCHER No. {}", v.code)));
    out.push(Line::Barcode(v.code.clone()));
    out.push(plain(
        "Tender at any keno writer terminal until VALID".into(),
    ));
    out.push(plain(
        "UNTIL; after it, by Unclaimed Prize Claim Form.".into(),
    ));
    out
}

/// A line of plain text.
fn plain(text: String) -> Line {
    Line::Text(vec![Span::plain(text)])
}

/// A line of bold text.
fn bold(text: String) -> Line {
    Line::Text(vec![Span::bold(text)])
}

/// Characters on a line of a thermal receipt.
const WIDTH: usize = 48;

/// Diagram C's two columns: left and right on one line when they fit, else on two.
fn two(out: &mut Vec<Line>, left: Span, right: Span) {
    let (l, r) = (left.text.chars().count(), right.text.chars().count());
    if l + 1 + r <= WIDTH {
        let right = Span {
            text: format!("{:>w$}", right.text, w = WIDTH - l),
            ..right
        };
        out.push(Line::Text(vec![left, right]));
    } else {
        out.push(Line::Text(vec![left]));
        let right = Span {
            text: format!("{:>WIDTH$}", right.text),
            ..right
        };
        out.push(Line::Text(vec![right]));
    }
}

/// A payment or cancellation slip: a title, label-value rows, and the ticket's serial as text and
/// barcode.
pub fn slip(title: &str, rows: &[(&str, String)], serial: &str) -> Vec<Line> {
    numbered_slip(title, rows, "SERIAL No.", serial)
}

/// A slip for a voucher (a cash-out): as a ticket's, with the voucher's code.
pub fn voucher_slip(title: &str, rows: &[(&str, String)], code: &str) -> Vec<Line> {
    numbered_slip(title, rows, "VOUCHER No.", code)
}

fn numbered_slip(title: &str, rows: &[(&str, String)], label: &str, serial: &str) -> Vec<Line> {
    let now = Local::now();
    let mut out = vec![
        Line::Text(vec![Span::bold(format!(
            "{:<24}{:>24}",
            "CASINO KENO", title
        ))]),
        Line::Text(vec![Span::plain(format!(
            "DATE: {} TIME: {}",
            now.format("%d/%m/%y"),
            now.format("%H:%M")
        ))]),
    ];
    for (label, value) in rows {
        out.push(Line::Text(vec![
            Span::plain(format!("{label:<20}")),
            Span::bold(format!("{value:>28}")),
        ]));
    }
    out.push(Line::Text(vec![Span::plain(format!("{label} {serial}"))]));
    out.push(Line::Barcode(serial.to_string()));
    out
}

/// A printed line: styled text, or the serial number as a barcode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Text(Vec<Span>),
    Barcode(String),
}

/// A run of text in one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub bold: bool,
    /// White on black: the numbers marked on the grid.
    pub reverse: bool,
}

impl Span {
    fn plain(text: String) -> Span {
        Span {
            text,
            bold: false,
            reverse: false,
        }
    }

    fn bold(text: String) -> Span {
        Span {
            text,
            bold: true,
            reverse: false,
        }
    }

    /// A reversed span " 06 " reads "[06]" where there is no reverse printing.
    pub fn as_text(&self) -> String {
        if self.reverse && self.text.len() >= 2 {
            format!("[{}]", &self.text[1..self.text.len() - 1])
        } else {
            self.text.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keno_api::set_bets::{SetBetMode, SetBetRef};
    use keno_api::tickets::{GameLine, TenderLine, WaysLine};
    use serde_json::json;

    /// A ticket as the server sends it, from the fields a test gives (the rest empty).
    fn ticket(fields: serde_json::Value) -> Ticket {
        let mut t = json!({
            "serial": "", "ticket_number": 0, "site": "", "terminal": "", "writer": "",
            "issued_at": "", "keno_day": "", "bet_type": "standard", "schedule": "standard",
            "groups": [], "combine": [], "ways": [], "amount_per_way_cents": 0, "first_game": 0,
            "last_game": 0, "games": 0, "charged_games": 0, "game_cost_cents": 0,
            "total_cents": 0, "status": "active", "cancelled_games": [], "refund_cents": 0,
            "cancelled_at": null, "paid_cents": 0, "paid_at": null, "paid_by": null,
            "pay_method": null, "request_id": "", "set_bet": null
        });
        for (k, v) in fields.as_object().unwrap() {
            t[k] = v.clone();
        }
        serde_json::from_value(t).unwrap()
    }

    fn receipt(fields: serde_json::Value, casino: &str) -> Receipt {
        Receipt::from_ticket(&ticket(fields), &SalePayment::cash(0), casino)
    }

    #[test]
    fn diagram_c_fields_from_the_servers_ticket() {
        let ticket = ticket(json!({
            "serial": "58692574833158900001", "ticket_number": 24589, "site": "735624",
            "terminal": "03", "writer": "JULIE", "issued_at": "2026-11-22T03:03:00Z",
            "bet_type": "way", "schedule": "standard", "groups": [[6, 45], [36, 80]],
            "ways": [{"count": 1, "spots": 4, "plays_as": "standard"}],
            "amount_per_way_cents": 300, "first_game": 200, "last_game": 200, "games": 1,
            "game_cost_cents": 300, "total_cents": 300
        }));
        let r = Receipt::from_ticket(&ticket, &SalePayment::cash(300), "CASINO");
        assert_eq!(r.bet, "BET-WAY");
        assert_eq!(r.selections, "06 45-36 80");
        assert_eq!(r.ticket_number, "024589");
        assert_eq!(r.ways, vec!["1/04 $3"]);
        assert_eq!(
            (
                r.amount_per_way.as_str(),
                r.games.as_str(),
                r.ticket_total.as_str()
            ),
            ("$3.00", "001", "$3.00")
        );
        assert_eq!(r.marked, vec![6, 36, 45, 80]);
        let text = r.to_text();
        assert!(text.contains("[06]") && text.contains("[80]") && text.contains(" 07 "));
        assert!(r
            .lines()
            .contains(&Line::Barcode("58692574833158900001".into())));
        for field in [
            "CASINO KENO",
            "RECEIPT TICKET",
            "OPERATOR NAME: JULIE",
            "No. 024589, TERMINAL 03, SITE 735624",
            "SELECTION(S): 06 45-36 80",
            "AMOUNT/WAY $3.00",
            "FIRST GAME 200",
            "LAST GAME 200",
            "GAMES 001",
            "GAME COST $3.00",
            "TICKET TOTAL $3.00",
            "SERIAL No. 58692574833158900001",
            "WAYS SPOTS AMOUNT",
            "1/04 $3",
        ] {
            assert!(text.contains(field), "{field} missing from\n{text}");
        }
    }

    #[test]
    fn a_set_bet_says_so_and_names_its_set() {
        let set = Ticket {
            bet_type: "set_bet".into(),
            groups: vec![vec![1, 2], vec![9, 10]],
            combine: vec![2],
            ways: vec![WaysLine {
                count: 1,
                spots: 4,
                plays_as: Schedule::Standard,
            }],
            amount_per_way_cents: 100,
            set_bet: Some(SetBetRef {
                id: 3,
                name: "Lucky Corners".into(),
                mode: SetBetMode::Random,
            }),
            ..ticket(json!({}))
        };
        let r = Receipt::from_ticket(&set, &SalePayment::cash(100), "CASINO");
        assert_eq!(r.bet, "BET-SET BET");
        assert_eq!(r.set.as_deref(), Some("LUCKY CORNERS (RANDOM)"));
        let text = r.to_text();
        assert!(
            text.contains("SET: LUCKY CORNERS (RANDOM)\nSELECTION(S): 01 02-09 10"),
            "{text}"
        );
        assert!(text.contains("BET-SET BET"), "{text}");
        let way = receipt(json!({"bet_type": "way", "groups": [[1]]}), "C");
        assert!(!way.to_text().contains("SET:"));
    }

    #[test]
    fn a_reprint_of_a_cancelled_or_paid_ticket_says_so() {
        let mut r = receipt(json!({"groups": [[1]], "status": "cancelled"}), "CASINO");
        assert!(!r.to_text().contains("CANCELLED"));
        r.reprint = true;
        let text = r.to_text();
        assert!(
            text.contains("*** REPRINT ***") && text.contains("*** TICKET CANCELLED ***"),
            "{text}"
        );
    }

    #[test]
    fn a_six_spot_standard_way_says_it_plays_special_1() {
        let r = receipt(
            json!({"groups": [[1, 2, 3, 4, 5, 6]], "amount_per_way_cents": 50,
                   "ways": [{"count": 1, "spots": 6, "plays_as": "special1"}]}),
            "CASINO",
        );
        assert_eq!(r.ways, vec!["1/06 $0.50 (SPECIAL 1)"]);
        let jackpot = json!({"bet_type": "quick_pick", "schedule": "jackpot", "groups": [[1]]});
        assert_eq!(receipt(jackpot, "C").bet, "BET-QUICK PICK JACKPOT");
    }

    #[test]
    fn a_voucher_prints_its_code_amount_and_validity() {
        let v = Voucher {
            code: "1234567890123456789012".into(),
            amount_cents: 2000,
            balance_cents: 1500,
            status: "active".into(),
            source: "deposit".into(),
            ticket: None,
            keno_day: "2026-11-23".into(),
            valid_until: "2027-11-23".into(),
            expired: false,
            issued_at: "2026-11-23T03:03:00Z".into(),
            site: "735624".into(),
            terminal: "03".into(),
            writer: "JULIE".into(),
            spends: Vec::new(),
            cashed_cents: 0,
            cashed_at: None,
        };
        let lines = voucher(&v, "CANBERRA", "VOUCHER");
        let text = to_text(&lines);
        for field in [
            "CASINO KENO",
            "VOUCHER",
            "CANBERRA",
            "OPERATOR NAME: JULIE",
            "TERMINAL 03, SITE 735624",
            "FOR: A DEPOSIT FOR FUTURE GAMING",
            "$20.00",
            "$15.00",
            "2027-11-23",
            "VOUCHER No. 1234567890123456789012",
            "Unclaimed Prize Claim Form",
        ] {
            assert!(text.contains(field), "{field} missing from\n{text}");
        }
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert!(lines.contains(&Line::Barcode("1234567890123456789012".into())));
    }

    #[test]
    fn a_receipt_paid_by_tender_says_so() {
        let line =
            |voucher: Option<&str>, ticket: Option<&str>, covered, remaining, change| TenderLine {
                voucher: voucher.map(str::to_string),
                ticket: ticket.map(str::to_string),
                covered_cents: covered,
                remaining_cents: remaining,
                change_cents: change,
            };
        let payment = SalePayment {
            tenders: vec![
                line(Some("1234567890123456789012"), None, 200, 1300, 0),
                line(None, Some("12345678901234567894"), 100, 0, 200),
            ],
            tendered_cents: 300,
            cash_cents: 0,
            change_cents: 200,
            change_voucher: Some("9234567890123456789015".into()),
        };
        let sold = ticket(json!({"groups": [[1]]}));
        let text = Receipt::from_ticket(&sold, &payment, "C").to_text();
        for field in [
            "PAID BY",
            "VOUCHER 1234567890123456789012",
            "LEFT ON IT $13.00",
            "TICKET 12345678901234567894",
            "CHANGE AS VOUCHER                          $2.00",
            "  No. 9234567890123456789015",
        ] {
            assert!(text.contains(field), "{field} missing from\n{text}");
        }
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert!(!receipt(json!({"groups": [[1]]}), "C")
            .to_text()
            .contains("PAID BY"));
    }
    /// The bold text lines of a receipt, as printed.
    fn bold_lines(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .filter_map(|l| match l {
                Line::Text(spans) if spans.iter().any(|s| s.bold) => {
                    Some(spans.iter().map(Span::as_text).collect())
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn rule_1_f_a_ticket_of_50_games_is_keno_to_go_with_its_free_game() {
        let sold = json!({"groups": [[1]], "games": 50, "charged_games": 49,
                          "game_cost_cents": 100, "total_cents": 4900});
        let r = receipt(sold, "C");
        assert!(r.keno_to_go);
        assert_eq!(r.free_games, 1);
        let text = r.to_text();
        assert!(text.contains("GAMES 050\n"), "{text}");
        assert!(text.contains("FREE GAMES 1\n"), "{text}");
        let bold = bold_lines(&r.lines());
        assert!(
            bold.iter().any(|l| l.trim() == "KENO TO GO"),
            "KENO TO GO is not a bold line: {bold:?}"
        );
        // Near the games, in the order the writer reads them; 48 columns.
        let at = |s: &str| text.find(s).unwrap();
        assert!(at("KENO TO GO") < at("GAMES 050") && at("FREE GAMES") < at("GAME COST"));
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        // 100 games: two free games (rule 6.2(b)).
        let hundred = json!({"groups": [[1]], "games": 100, "charged_games": 98});
        assert!(receipt(hundred, "C").to_text().contains("FREE GAMES 2\n"));
    }

    #[test]
    fn forty_nine_games_are_not_keno_to_go() {
        let text = receipt(
            json!({"groups": [[1]], "games": 49, "charged_games": 49}),
            "C",
        )
        .to_text();
        assert!(
            !text.contains("KENO TO GO") && !text.contains("FREE GAMES"),
            "{text}"
        );
        // The server's word wins over the built-in count: an operator's rule set may start
        // Keno To Go elsewhere.
        let server_says = json!({"groups": [[1]], "games": 49, "charged_games": 49,
                                 "keno_to_go": true});
        assert!(receipt(server_says, "C").to_text().contains("KENO TO GO"));
        let not_to_go = json!({"groups": [[1]], "games": 60, "charged_games": 59,
                               "keno_to_go": false});
        let text = receipt(not_to_go, "C").to_text();
        assert!(!text.contains("KENO TO GO") && text.contains("FREE GAMES 1"));
    }

    /// The server's full view of a ticket of games 4-7: game 4 invalidated, 5-7 cancelled.
    fn closed_detail() -> TicketDetail {
        let mut detail = serde_json::to_value(ticket(json!({
            "groups": [[1]], "first_game": 4, "last_game": 7, "games": 4, "charged_games": 4,
            "game_cost_cents": 300, "total_cents": 1200, "cancelled_games": [5, 6, 7],
            "refund_cents": 900
        })))
        .unwrap();
        let view = json!({
            "results": [{"game": 4, "state": "invalidated", "ways": [], "prize_cents": 0,
                         "refund_cents": 300}],
            "won_cents": 0, "invalidated_refund_cents": 300, "payable_cents": 300,
            "cheque": false, "not_payable": null, "payment": SalePayment::cash(1200),
            "paid_as_voucher": null, "tendered_for": null
        });
        for (k, v) in view.as_object().unwrap() {
            detail[k] = v.clone();
        }
        serde_json::from_value(detail).unwrap()
    }

    #[test]
    fn a_reprint_lists_the_games_cancelled_and_invalidated_with_their_refunds() {
        let detail = closed_detail();
        let mut r = Receipt::from_detail(&detail, "C");
        assert!(!r.to_text().contains("CANCELLED"), "only a reprint says it");
        r.reprint = true;
        let text = r.to_text();
        let bold = bold_lines(&r.lines()).join("\n");
        for line in [
            "CANCELLED GAMES 5-7,",
            "REFUND $9.00",
            "GAME 4 INVALIDATED,",
            "REFUND $3.00",
        ] {
            assert!(bold.contains(line), "{line} missing from\n{text}");
        }
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        // One game cancelled reads in the singular.
        let one = Ticket {
            cancelled_games: vec![7],
            refund_cents: 300,
            ..detail.ticket.clone()
        };
        let mut r = Receipt::from_ticket(&one, &SalePayment::cash(0), "C");
        r.reprint = true;
        assert!(r.to_text().contains("CANCELLED GAME 7,"), "{}", r.to_text());
    }

    #[test]
    fn a_reprint_says_when_a_win_is_paid_and_how_a_paid_ticket_was() {
        let mut detail = closed_detail();
        detail.ticket.cancelled_games = vec![];
        detail.ticket.refund_cents = 0;
        let line = |game: i64, standing, prize_cents, collect, after_game| GameLine {
            game,
            standing,
            prize_cents,
            refund_cents: None,
            collect,
            after_game,
        };
        detail.lines = vec![
            line(4, GameStanding::Won, 300, Some(Collect::AfterGame), Some(7)),
            line(5, GameStanding::ToCome, 0, None, None),
        ];
        let mut r = Receipt::from_detail(&detail, "C");
        r.reprint = true;
        let bold = bold_lines(&r.lines()).join("\n");
        assert!(bold.contains("GAME 4 WON,"), "{bold}");
        assert!(bold.contains("$3.00 AFTER GAME 7"), "{bold}");

        // Paid since: the win marked paid, and how and when the ticket was paid.
        detail.lines[0].collect = Some(Collect::Paid);
        detail.ticket.status = "paid".into();
        detail.ticket.paid_cents = 300;
        detail.ticket.pay_method = Some("cash".into());
        detail.ticket.paid_at = Some("2026-11-25T06:20:00Z".into());
        let mut r = Receipt::from_detail(&detail, "C");
        r.reprint = true;
        let text = r.to_text();
        let bold = bold_lines(&r.lines()).join("\n");
        for line in [
            "*** TICKET PAID ***",
            "$3.00 PAID",
            "PAID $3.00",
            "IN CASH",
            "ON",
        ] {
            assert!(bold.contains(line), "{line} missing from\n{text}");
        }
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
    }
}
