//! The entry forms of rule 5.5: the blank forms printed for the venue, and a marked Mark Sense
//! Entry Form read into the sale it chooses.
//!
//! A form read becomes the line a writer would have typed for it, and that line goes through
//! the counter's own entry (`counter::command::parse`): a scanned sale is checked as a keyed one
//! is, then priced and refused by the server as a keyed one is. The sale keeps the SHA-256 of
//! the image (rule 5.4: which form it came from).

use std::fmt;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use keno_api::tickets::{BetRequest, Schedule};
use keno_core::bet::{BetKind, Marks};
use keno_core::board::Selection;
use keno_core::rules::RuleSet;
use keno_core::schedule::ScheduleId;
use keno_forms::{Choice, FormSchedule};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::counter::command::{self, Command};
use crate::order::Order;

#[derive(Subcommand)]
pub enum FormsCommand {
    /// Print a blank entry form to a PDF: one A5 page (148 x 210 mm), two to an A4 sheet.
    Print {
        /// a: the Mark Sense Entry Form (Diagram A, read by `forms read` and `scan`); b: the
        /// Way Bet Entry Form (Diagram B, keyed by the writer).
        #[arg(long, value_enum)]
        diagram: Diagram,
        #[arg(long)]
        out: PathBuf,
    },
    /// Read a marked Mark Sense Entry Form from a scan or a photograph (PNG, JPEG or TIFF) and
    /// print the sale it chooses, checked against the rules; exit 2, naming the boxes, when it
    /// is ambiguous or invalid. Nothing is sold: at the counter, `scan FILE` sells it.
    Read {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        /// The venue's rule set (the server's --rules file); the built-in ACT 1992 rules if
        /// left out.
        #[arg(long)]
        rules: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Diagram {
    A,
    B,
}

/// A form read into a sale: the order as typed entry makes it, and the image's digest.
#[derive(Debug, Clone)]
pub struct Scanned {
    pub order: Order,
    pub choice: Choice,
    pub sha256: String,
    pub typed: String,
}

/// Why a file gave no sale.
#[derive(Debug)]
pub enum ScanError {
    File(String),
    NotRead(keno_forms::NotRead),
    Refused(keno_forms::Refusal),
    /// The typed entry or the rules refuse what the form chooses.
    Invalid(String),
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanError::File(m) | ScanError::Invalid(m) => f.write_str(m),
            ScanError::NotRead(e) => write!(f, "not read: {e}"),
            ScanError::Refused(r) => write!(f, "{r}"),
        }
    }
}

/// Reads the form in `path` into the sale it chooses.
pub fn scan(path: &Path) -> Result<Scanned, ScanError> {
    let bytes =
        std::fs::read(path).map_err(|e| ScanError::File(format!("{}: {e}", path.display())))?;
    scan_bytes(&bytes)
}

pub fn scan_bytes(bytes: &[u8]) -> Result<Scanned, ScanError> {
    let reading = keno_forms::read_bytes(bytes).map_err(ScanError::NotRead)?;
    let choice = keno_forms::choice(&reading).map_err(ScanError::Refused)?;
    let typed = typed_line(&choice);
    let order = match command::parse(&typed, None) {
        Ok(Command::Sell(order)) => order,
        Ok(_) => return Err(ScanError::Invalid(format!("{typed:?} is not a sale"))),
        Err(e) => return Err(ScanError::Invalid(e)),
    };
    let sha256 = hex(&Sha256::digest(bytes));
    Ok(Scanned {
        order: Order {
            entry_form: Some(sha256.clone()),
            ..order
        },
        choice,
        sha256,
        typed,
    })
}

/// The line a writer would type for the form: "6 36 45 80 $3 g5 s2".
fn typed_line(c: &Choice) -> String {
    let mut words: Vec<String> = c.numbers.iter().map(u8::to_string).collect();
    words.push(format!("${}", c.price_cents / 100));
    words.push(format!("g{}", c.games));
    match c.schedule {
        FormSchedule::Standard => {}
        FormSchedule::Special(s) => words.push(format!("s{s}")),
        FormSchedule::Jackpot => words.push("j".into()),
    }
    words.join(" ")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What `forms read` prints: the bet as the API writes it.
#[derive(Serialize)]
pub struct ReadBet<'a> {
    pub form: keno_forms::FormId,
    pub spots: &'a [u8],
    pub schedule: Schedule,
    pub games: u32,
    pub amount_per_way_cents: u64,
    pub total_cents: u64,
    pub sha256: &'a str,
}

/// Checks the scanned order against `rules` as a sale would be (rule 5.5, 6.2, 7, 18) and
/// gives its total.
pub fn check_rules(scanned: &Scanned, rules: &RuleSet) -> Result<u64, ScanError> {
    let o = &scanned.order;
    let BetRequest::Standard { spots } = &o.bet else {
        return Err(ScanError::Invalid(
            "a form reads as a standard ticket".into(),
        ));
    };
    let invalid = |e: keno_core::BetError| ScanError::Invalid(format!("the rules refuse it: {e}"));
    let selection = Selection::new(spots).map_err(|e| invalid(e.into()))?;
    let marks = Marks {
        kind: BetKind::Standard,
        groups: vec![selection.set()],
        combine: vec![1],
    };
    let schedule = ScheduleId::from(o.schedule);
    let plan = rules.plan(marks, schedule).map_err(invalid)?;
    let price = rules
        .price(&plan, o.amount_cents, o.games)
        .map_err(invalid)?;
    Ok(price.total_cents)
}
