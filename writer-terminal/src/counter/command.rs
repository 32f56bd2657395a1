//! What the writer types at the counter, in as few keystrokes as the queue allows:
//!
//! - `6 45 36 80 $3` a standard ticket; `g5` for five games; `s1`, `s2`, `s3` or `j` for
//!   Special 1-3 or the jackpot;
//! - `qp7 $2` a quick pick of seven; `m $1` a mystery quick pick;
//! - `w 6 45-36 80 c2 $3` a way ticket (groups as on the receipt, `c` the combinations; several
//!   in one, `c2,3`: a token typed twice is a mistake said, never a silent replacement);
//! - `set 3 $2` set bet 3 of the catalogue, its own numbers; `set 3 r $2` with random numbers
//!   of the same shape; without an amount, the set's suggested amount; `sets` lists them;
//! - a serial (typed, or a scanner's digits and Enter) checks a ticket; then `p` pays it and
//!   `x` cancels it; a voucher's code (22 digits) shows the voucher;
//! - `v:CODE` (or `v:CODE:2.50` for that much of it) and `t:SERIAL` in a sale pay it with a
//!   voucher or a winning ticket (rule 6.1), the rest in cash;
//! - `r` replays the last ticket, `rp` reprints it, `res` shows recent results, `q` quits;
//! - `xl` cancels the last ticket sold here (shown first, confirmed with Enter); `ls` lists this
//!   terminal's last sales; `amt $2` sets a default amount per way for sales typed without one
//!   (`amt off` drops it); `claim` opens the Unclaimed Prize Claim Form's fields (rule 13.5);
//! - `scan FILE` reads a scanned Mark Sense Entry Form (rule 5.5(a)) into the sale it chooses,
//!   shown for Enter as a typed sale is (the watched folder, `--scan-dir`, does it by itself);
//! - `shift open 500` opens the writer's shift with the float, `shift close 495` closes it with
//!   the cash counted, `shift` shows the drawer; `so` signs off.

use keno_api::tickets::{BetRequest, Schedule};

use crate::entry;
use crate::order::Order;

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Sell(Order),
    /// A set bet (rule 6.3(h)); its amount is the set's suggested one when none is typed.
    SellSet(SetOrder),
    /// The catalogue of set bets.
    Sets,
    Check(String),
    /// A voucher's code: show its balance and validity.
    CheckVoucher(String),
    Pay,
    Cancel,
    Replay,
    Reprint,
    /// Cancel the last ticket sold at this terminal, once the writer has seen it.
    CancelLast,
    /// This terminal's last sales.
    Recent,
    /// A default amount per way (cents) for sales typed without one; `None` drops it.
    DefaultAmount(Option<u64>),
    /// The Unclaimed Prize Claim Form's fields, typed one after the other.
    Claim,
    Results,
    Help,
    Quit,
    /// Sign off: the session ends and the sign-on screen comes back.
    SignOff,
    Shift(ShiftCommand),
    /// A scanned entry form's image: read, then priced and shown as a typed sale.
    Scan(std::path::PathBuf),
}

/// The writer's shift: its drawer so far, or opened or closed with an amount in cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShiftCommand {
    Show,
    /// With the float in the drawer.
    Open(i64),
    /// With the cash counted.
    Close(i64),
}

/// A set bet as typed: the set, fixed or random, and the rest of the order.
#[derive(Debug, Clone, PartialEq)]
pub struct SetOrder {
    pub set: i64,
    pub random: bool,
    pub amount_cents: Option<u64>,
    pub schedule: Schedule,
    pub games: u32,
}

impl SetOrder {
    /// The order, at `amount_cents` when none was typed.
    pub fn order(&self, suggested_cents: u64) -> Order {
        Order {
            bet: crate::order::set_bet(self.set, self.random),
            schedule: self.schedule,
            amount_cents: self.amount_cents.unwrap_or(suggested_cents),
            games: self.games,
            tenders: Vec::new(),
            entry_form: None,
        }
    }
}

/// A line typed at the counter; a sale without an amount is at `default_amount` if one is set.
pub fn parse(line: &str, default_amount: Option<u64>) -> Result<Command, String> {
    let line = line.trim();
    match line {
        "xl" => return Ok(Command::CancelLast),
        "ls" => return Ok(Command::Recent),
        "claim" => return Ok(Command::Claim),
        "amt off" => return Ok(Command::DefaultAmount(None)),
        "p" => return Ok(Command::Pay),
        "x" => return Ok(Command::Cancel),
        "r" => return Ok(Command::Replay),
        "rp" => return Ok(Command::Reprint),
        "res" => return Ok(Command::Results),
        "sets" => return Ok(Command::Sets),
        "?" | "help" => return Ok(Command::Help),
        "q" | "quit" => return Ok(Command::Quit),
        "so" => return Ok(Command::SignOff),
        "" => return Err("type a selection, a serial, or ? for help".into()),
        _ => {}
    }
    if let Some(amount) = line.strip_prefix("amt ") {
        return entry::parse_dollars(amount.trim())
            .map(|cents| Command::DefaultAmount(Some(cents)))
            .map_err(|e| format!("{e}: a default amount is amt and dollars, like amt $2"));
    }
    if let Some(file) = line.strip_prefix("scan ") {
        return Ok(Command::Scan(file.trim().into()));
    }
    if line.split_whitespace().next() == Some("shift") {
        return shift(line).map(Command::Shift);
    }
    if line.len() >= 15 && line.bytes().all(|b| b.is_ascii_digit()) {
        if line.len() == keno_core::serial::VOUCHER_DIGITS {
            return Ok(Command::CheckVoucher(line.to_string()));
        }
        return Ok(Command::Check(line.to_string()));
    }
    let mut typed = Typed::default();
    for token in line.split_whitespace() {
        typed.take(token)?;
    }
    let Typed {
        schedule,
        amount,
        games,
        combine,
        words,
        tenders,
    } = typed;
    let (schedule, games) = (schedule.unwrap_or(Schedule::Standard), games.unwrap_or(1));
    if words.first() == Some(&"set") {
        let (set, random) = match words[1..] {
            [set] => (set, false),
            [set, "r"] => (set, true),
            _ => return Err("a set bet is set, the set's number, r for random numbers, and the amount: set 3 r $2".into()),
        };
        let set = set
            .parse()
            .map_err(|_| format!("{set:?} is not a set's number: type sets for the list"))?;
        return Ok(Command::SellSet(SetOrder {
            set,
            random,
            amount_cents: amount,
            schedule,
            games,
        }));
    }
    let bet = bet(&words, combine.as_deref())?;
    let amount = amount
        .or(default_amount)
        .ok_or("give the amount per way, like $3 (or set a default: amt $2)")?;
    Ok(Command::Sell(Order {
        bet,
        schedule,
        amount_cents: amount,
        games,
        tenders,
        entry_form: None,
    }))
}

/// A sale's tokens as typed, each kind at most once: a second schedule, amount, game count or
/// combination is a mistake to say, never a silent replacement of the first.
#[derive(Default)]
struct Typed<'a> {
    schedule: Option<Schedule>,
    amount: Option<u64>,
    games: Option<u32>,
    combine: Option<String>,
    words: Vec<&'a str>,
    tenders: Vec<keno_api::tickets::Tender>,
}

impl<'a> Typed<'a> {
    fn take(&mut self, token: &'a str) -> Result<(), String> {
        let schedule = match token {
            "s1" => Some(Schedule::Special1),
            "s2" => Some(Schedule::Special2),
            "s3" => Some(Schedule::Special3),
            "j" => Some(Schedule::Jackpot),
            _ => None,
        };
        match token {
            t if t.starts_with("v:") || t.starts_with("t:") => {
                self.tenders.push(entry::parse_tender(t)?)
            }
            t if schedule.is_some() => once(
                &mut self.schedule,
                schedule,
                t,
                "schedule (s1, s2, s3 or j)",
            )?,
            t if t.starts_with('$') => once(
                &mut self.amount,
                Some(entry::parse_dollars(t)?),
                t,
                "amount",
            )?,
            t if t.starts_with('g') && t.len() > 1 => {
                let games = t[1..]
                    .parse()
                    .map_err(|_| format!("{t:?}: games are g and a number, like g5"))?;
                once(&mut self.games, Some(games), t, "game count")?
            }
            t if t.starts_with('c') && t.len() > 1 => once(
                &mut self.combine,
                Some(t[1..].to_string()),
                t,
                "combination: for several, one c with commas, like c2,3",
            )?,
            t => self.words.push(t),
        }
        Ok(())
    }
}

/// Sets `slot` the first time; a second time is refused, naming what was typed twice.
fn once<T>(slot: &mut Option<T>, value: Option<T>, token: &str, what: &str) -> Result<(), String> {
    if slot.is_some() {
        return Err(format!("{token:?}: a second {what}; type each once"));
    }
    *slot = value;
    Ok(())
}

/// `shift`, `shift open AMOUNT`, `shift close AMOUNT` (dollars: "500", "$495.50").
fn shift(line: &str) -> Result<ShiftCommand, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words[1..] {
        [] => Ok(ShiftCommand::Show),
        ["open", amount] => entry::parse_cents(amount).map(ShiftCommand::Open),
        ["close", amount] => entry::parse_cents(amount).map(ShiftCommand::Close),
        _ => Err(
            "shift open AMOUNT (the float), shift close AMOUNT (the cash counted), or shift".into(),
        ),
    }
}

/// The bet of a sale as typed (the words left once the schedule, games, amount and tenders are
/// read): `m`, `qpN`, `w` and groups with `combine`, or a standard ticket's numbers.
fn bet(words: &[&str], combine: Option<&str>) -> Result<BetRequest, String> {
    Ok(match words.first().copied() {
        Some("m") if words.len() == 1 => BetRequest::MysteryQuickPick,
        Some(qp) if qp.starts_with("qp") => BetRequest::QuickPick {
            count: entry::parse_count(&qp[2..])?,
        },
        Some("w") => {
            let groups = entry::parse_groups(&words[1..].join(" "))?;
            let combine = entry::parse_combine(
                combine.ok_or("a way ticket needs c and the combinations, like c2")?,
                groups.len(),
            )?;
            BetRequest::Way { groups, combine }
        }
        _ => {
            if let Some(word) = words.iter().find(|w| w.parse::<u8>().is_err()) {
                return Err(format!(
                    "{word:?} is not a number from 1 to 80 nor a command: type ? for help"
                ));
            }
            BetRequest::Standard {
                spots: entry::parse_spots(&words.join(" "))?,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// What goes on the wire: the tests say it in the API's JSON.
    fn wire(v: impl serde::Serialize) -> Value {
        serde_json::to_value(v).unwrap()
    }

    fn sale(line: &str) -> Order {
        match parse(line, None) {
            Ok(Command::Sell(o)) => o,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn sales_in_a_few_keystrokes() {
        let o = sale("6 45 36 80 $3");
        assert_eq!(
            wire(&o.bet),
            json!({"type": "standard", "spots": [6, 45, 36, 80]})
        );
        assert_eq!(
            (o.amount_cents, o.games, o.schedule.as_str()),
            (300, 1, "standard")
        );
        let o = sale("1 2 3 4 5 6 $2 j g10");
        assert_eq!((o.schedule.as_str(), o.games), ("jackpot", 10));
        assert_eq!(
            wire(sale("qp7 $2").bet),
            json!({"type": "quick_pick", "count": 7})
        );
        assert_eq!(
            wire(sale("m $1").bet),
            json!({"type": "mystery_quick_pick"})
        );
        let o = sale("w 6 45-36 80 c2 $3");
        assert_eq!(
            wire(&o.bet),
            json!({"type": "way", "groups": [[6, 45], [36, 80]], "combine": [2]})
        );
        assert_eq!(wire(sale("w 1-2-3 call $1").bet)["combine"], json!([3]));
        assert_eq!(sale("10 20 30 s2 $1").schedule, Schedule::Special2);
    }

    #[test]
    fn set_bets_by_number_fixed_or_random() {
        let set = |line: &str| match parse(line, None) {
            Ok(Command::SellSet(o)) => o,
            other => panic!("{line}: {other:?}"),
        };
        let o = set("set 3 $2");
        assert_eq!((o.set, o.random, o.amount_cents), (3, false, Some(200)));
        assert_eq!(
            wire(o.order(100).bet),
            json!({"type": "set_bet", "set": 3, "mode": "fixed"})
        );
        let o = set("set 3 r $2 g5 s1");
        assert_eq!(
            (o.random, o.games, o.schedule.as_str()),
            (true, 5, "special1")
        );
        assert_eq!(wire(o.order(100).bet)["mode"], "random");
        // No amount: the set's suggested one.
        let o = set("set 12");
        assert_eq!((o.amount_cents, o.order(50).amount_cents), (None, 50));
        assert_eq!(parse("sets", None), Ok(Command::Sets));
        assert!(parse("set x $1", None)
            .unwrap_err()
            .contains("set's number"));
        assert!(parse("set 3 q $1", None).is_err());
        assert!(parse("set $1", None).is_err());
    }

    #[test]
    fn serials_and_short_commands() {
        assert_eq!(
            parse("12345678901234567890", None),
            Ok(Command::Check("12345678901234567890".into()))
        );
        assert_eq!(parse("p", None), Ok(Command::Pay));
        assert_eq!(parse(" x ", None), Ok(Command::Cancel));
        assert_eq!(parse("r", None), Ok(Command::Replay));
        assert_eq!(parse("q", None), Ok(Command::Quit));
        assert_eq!(
            parse("1234567890123456789012", None),
            Ok(Command::CheckVoucher("1234567890123456789012".into()))
        );
    }

    #[test]
    fn a_sale_paid_with_a_voucher_and_a_winning_ticket() {
        let o = sale("6 45 $3 v:1234567890123456789012 t:12345678901234567894");
        assert_eq!(
            wire(&o.tenders),
            json!([
                {"voucher": "1234567890123456789012"},
                {"ticket": "12345678901234567894"}
            ])
        );
        assert_eq!(wire(&o.bet), json!({"type": "standard", "spots": [6, 45]}));
        assert_eq!(
            wire(sale("qp5 $2 v:1234567890123456789012:1.50").tenders),
            json!([{"voucher": "1234567890123456789012", "amount_cents": 150}])
        );
        assert!(parse("6 $1 v:1234567890123456789013", None)
            .unwrap_err()
            .contains("voucher code"));
    }

    #[test]
    fn the_shift_and_the_sign_off() {
        assert_eq!(parse("so", None), Ok(Command::SignOff));
        assert_eq!(parse("shift", None), Ok(Command::Shift(ShiftCommand::Show)));
        assert_eq!(
            parse("shift open 500", None),
            Ok(Command::Shift(ShiftCommand::Open(50_000)))
        );
        assert_eq!(
            parse(" shift close $495.50 ", None),
            Ok(Command::Shift(ShiftCommand::Close(49_550)))
        );
        assert!(parse("shift open", None).unwrap_err().contains("float"));
        assert!(parse("shift close 4x", None).is_err());
    }

    #[test]
    fn mistakes_are_said_in_words() {
        assert!(parse("6 45 36", None).unwrap_err().contains("amount"));
        assert!(parse("w 6 45-36 80 $3", None)
            .unwrap_err()
            .contains("combinations"));
        assert!(parse("qp99 $1", None).is_err());
        assert!(parse("6 4x $1", None).is_err());
        assert!(parse("hello", None).unwrap_err().contains("? for help"));
    }

    #[test]
    fn each_token_is_typed_once_and_several_combinations_in_one() {
        // The writer meant every combination of 2 and of 3 groups: said once, as c2,3.
        let e = parse("w 1 2-3 4-5 6-7 8 c2 c3 $1", None).unwrap_err();
        assert!(e.contains("\"c3\"") && e.contains("c2,3"), "{e}");
        let Command::Sell(order) = parse("w 1 2-3 4-5 6-7 8 c2,3 $1", None).unwrap() else {
            panic!("a sale");
        };
        assert_eq!(
            wire(&order.bet),
            json!({"type": "way", "groups": [[1, 2], [3, 4], [5, 6], [7, 8]], "combine": [2, 3]})
        );
        for twice in [
            "6 45 g2 g5 $1",
            "6 45 $1 $2",
            "6 45 s1 j $1",
            "6 45 s1 s1 $1",
        ] {
            let e = parse(twice, None).unwrap_err();
            assert!(e.contains("a second") && e.contains("once"), "{twice}: {e}");
        }
    }

    #[test]
    fn a_default_amount_serves_a_sale_typed_without_one_and_never_overrides_one_typed() {
        assert_eq!(parse("amt $2", None), Ok(Command::DefaultAmount(Some(200))));
        assert_eq!(parse("amt off", None), Ok(Command::DefaultAmount(None)));
        assert!(parse("amt two", None).unwrap_err().contains("amt $2"));
        let amount = |line: &str, default| match parse(line, default) {
            Ok(Command::Sell(order)) => Ok(order.amount_cents),
            other => Err(format!("{other:?}")),
        };
        assert_eq!(amount("6 45 36", Some(200)), Ok(200));
        assert_eq!(amount("6 45 36 $5", Some(200)), Ok(500));
        assert!(amount("6 45 36", None).unwrap_err().contains("amt $2"));
        assert_eq!(parse("xl", None), Ok(Command::CancelLast));
        assert_eq!(parse("ls", None), Ok(Command::Recent));
        assert_eq!(parse("claim", None), Ok(Command::Claim));
    }
}
