//! The receipt ticket laid out as Diagram C: the one model every printer (text, ESC/POS, PDF)
//! renders. Built from the server's record of the ticket (rule 5.3).

use chrono::{DateTime, Local};
use keno_core::Dollars;
use serde_json::Value;

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
    pub game_cost: String,
    pub ticket_total: String,
    pub serial: String,
    /// "1/04 $3" lines of the WAYS SPOTS AMOUNT table.
    pub ways: Vec<String>,
    pub reprint: bool,
    /// The ticket's status on the server: a reprint of a cancelled or paid ticket says so.
    pub status: String,
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn cents(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// "$3" for whole dollars, "$0.50" otherwise, as the WAYS SPOTS AMOUNT column shows it.
fn short_dollars(c: u64) -> String {
    if c % 100 == 0 {
        format!("${}", c / 100)
    } else {
        Dollars(c).to_string()
    }
}

impl Receipt {
    /// The receipt of a ticket as the server returned it.
    pub fn from_ticket(ticket: &Value, casino: &str) -> Receipt {
        let issued = ticket["issued_at"]
            .as_str()
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Local));
        let groups: Vec<Vec<u8>> =
            serde_json::from_value(ticket["groups"].clone()).unwrap_or_default();
        let mut marked: Vec<u8> = groups.iter().flatten().copied().collect();
        marked.sort_unstable();
        let selections = groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|n| format!("{n:02}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("-");
        let amount = cents(&ticket["amount_per_way_cents"]);
        let mut bet = text(&ticket["bet_type"]).replace('_', " ").to_uppercase();
        let schedule = text(&ticket["schedule"]);
        if schedule != "standard" {
            bet = format!(
                "{bet} {}",
                schedule.replace("special", "SPECIAL ").to_uppercase()
            );
        }
        let ways = ticket["ways"]
            .as_array()
            .map(|lines| {
                lines
                    .iter()
                    .map(|l| {
                        let mut line = format!(
                            "{}/{:02} {}",
                            l["count"],
                            l["spots"].as_u64().unwrap_or(0),
                            short_dollars(amount)
                        );
                        // A standard 6- or 8-spot way plays Special 1: the receipt says so.
                        if l["plays_as"] != ticket["schedule"] {
                            line.push_str(&format!(
                                " ({})",
                                text(&l["plays_as"])
                                    .replace("special", "SPECIAL ")
                                    .to_uppercase()
                            ));
                        }
                        line
                    })
                    .collect()
            })
            .unwrap_or_default();
        let set = ticket["set_bet"]["name"].as_str().map(|name| {
            format!(
                "{} ({})",
                name.to_uppercase(),
                text(&ticket["set_bet"]["mode"]).to_uppercase()
            )
        });
        Receipt {
            casino: casino.to_string(),
            bet: format!("BET-{bet}"),
            date: issued.map_or_else(String::new, |t| t.format("%d/%m/%y").to_string()),
            time: issued.map_or_else(String::new, |t| t.format("%H:%M").to_string()),
            operator: text(&ticket["writer"]),
            ticket_number: format!("{:06}", ticket["ticket_number"].as_u64().unwrap_or(0)),
            terminal: text(&ticket["terminal"]),
            site: text(&ticket["site"]),
            marked,
            selections,
            set,
            amount_per_way: Dollars(amount).to_string(),
            first_game: text(&ticket["first_game"]),
            last_game: text(&ticket["last_game"]),
            games: format!("{:03}", ticket["games"].as_u64().unwrap_or(0)),
            game_cost: Dollars(cents(&ticket["game_cost_cents"])).to_string(),
            ticket_total: Dollars(cents(&ticket["total_cents"])).to_string(),
            serial: text(&ticket["serial"]),
            ways,
            reprint: false,
            status: text(&ticket["status"]),
        }
    }

    /// The receipt as printed lines, top to bottom: one layout for every printer.
    pub fn lines(&self) -> Vec<Line> {
        let mut out = Vec::new();
        let plain = |t: String| Line::Text(vec![Span::plain(t)]);
        if self.reprint {
            out.push(Line::Text(vec![Span::bold(format!(
                "{:^WIDTH$}",
                "*** REPRINT ***"
            ))]));
        }
        if self.reprint && (self.status == "cancelled" || self.status == "paid") {
            let note = format!("*** TICKET {} ***", self.status.to_uppercase());
            out.push(Line::Text(vec![Span::bold(format!("{note:^WIDTH$}"))]));
        }
        // Diagram C's header: CASINO KENO, PLAY YOUR GAME and the casino on the left; RECEIPT
        // TICKET, the bet type and the date and time on the right.
        out.push(Line::Text(vec![Span::bold(format!(
            "{:<24}{:>24}",
            "CASINO KENO", "RECEIPT TICKET"
        ))]));
        two(
            &mut out,
            Span::plain("PLAY YOUR GAME".into()),
            Span::bold(self.bet.clone()),
        );
        two(
            &mut out,
            Span::plain(self.casino.clone()),
            Span::plain(format!("DATE: {} TIME: {}", self.date, self.time)),
        );
        out.push(plain(format!("OPERATOR NAME: {}", self.operator)));
        out.push(plain(format!(
            "No. {}, TERMINAL {}, SITE {}",
            self.ticket_number, self.terminal, self.site
        )));
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
        two(
            &mut out,
            Span::plain(format!("AMOUNT/WAY {}", self.amount_per_way)),
            Span::plain(format!("FIRST GAME {}", self.first_game)),
        );
        two(
            &mut out,
            Span::plain(format!("SERIAL No. {}", self.serial)),
            Span::plain(format!("LAST GAME {}", self.last_game)),
        );
        out.push(plain(format!(
            "{:>WIDTH$}",
            format!("GAMES {}", self.games)
        )));
        out.push(plain(format!(
            "{:>WIDTH$}",
            format!("GAME COST {}", self.game_cost)
        )));
        out.push(Line::Text(vec![Span::bold(format!(
            "{:>WIDTH$}",
            format!("TICKET TOTAL {}", self.ticket_total)
        ))]));
        out.push(Line::Barcode(self.serial.clone()));
        out.push(Line::Text(vec![Span::bold("WAYS SPOTS AMOUNT".into())]));
        for w in &self.ways {
            out.push(plain(w.clone()));
        }
        out
    }

    /// The receipt as plain text, 48 columns (a thermal printer's width); marked numbers in
    /// brackets where the printer prints them white on black.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for line in self.lines() {
            if let Line::Text(spans) = line {
                for span in spans {
                    out.push_str(&span.as_text());
                }
                out.push('\n');
            }
        }
        out
    }
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
    out.push(Line::Text(vec![Span::plain(format!(
        "SERIAL No. {serial}"
    ))]));
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
    use serde_json::json;

    #[test]
    fn diagram_c_fields_from_the_servers_ticket() {
        let ticket = json!({
            "serial": "58692574833158900001", "ticket_number": 24589, "site": "735624",
            "terminal": "03", "writer": "JULIE", "issued_at": "2026-11-22T03:03:00Z",
            "bet_type": "way", "schedule": "standard", "groups": [[6, 45], [36, 80]],
            "ways": [{"count": 1, "spots": 4, "plays_as": "standard"}],
            "amount_per_way_cents": 300, "first_game": 200, "last_game": 200, "games": 1,
            "game_cost_cents": 300, "total_cents": 300
        });
        let r = Receipt::from_ticket(&ticket, "CASINO");
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
        let ticket = json!({"bet_type": "set_bet", "schedule": "standard", "groups": [[1, 2], [9, 10]],
            "combine": [2], "ways": [{"count": 1, "spots": 4, "plays_as": "standard"}],
            "amount_per_way_cents": 100,
            "set_bet": {"id": 3, "name": "Lucky Corners", "mode": "random"}});
        let r = Receipt::from_ticket(&ticket, "CASINO");
        assert_eq!(r.bet, "BET-SET BET");
        assert_eq!(r.set.as_deref(), Some("LUCKY CORNERS (RANDOM)"));
        let text = r.to_text();
        assert!(
            text.contains("SET: LUCKY CORNERS (RANDOM)\nSELECTION(S): 01 02-09 10"),
            "{text}"
        );
        assert!(text.contains("BET-SET BET"), "{text}");
        let way = json!({"bet_type": "way", "schedule": "standard", "groups": [[1]], "ways": [], "set_bet": null});
        assert!(!Receipt::from_ticket(&way, "C").to_text().contains("SET:"));
    }

    #[test]
    fn a_reprint_of_a_cancelled_or_paid_ticket_says_so() {
        let ticket = json!({"bet_type": "standard", "schedule": "standard", "groups": [[1]], "ways": [], "status": "cancelled"});
        let mut r = Receipt::from_ticket(&ticket, "CASINO");
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
        let ticket = json!({"bet_type": "standard", "schedule": "standard", "groups": [[1, 2, 3, 4, 5, 6]],
            "ways": [{"count": 1, "spots": 6, "plays_as": "special1"}], "amount_per_way_cents": 50});
        let r = Receipt::from_ticket(&ticket, "CASINO");
        assert_eq!(r.ways, vec!["1/06 $0.50 (SPECIAL 1)"]);
        let jackpot =
            json!({"bet_type": "quick_pick", "schedule": "jackpot", "groups": [[1]], "ways": []});
        assert_eq!(
            Receipt::from_ticket(&jackpot, "C").bet,
            "BET-QUICK PICK JACKPOT"
        );
    }
}
