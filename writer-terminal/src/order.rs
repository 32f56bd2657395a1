//! A sale as the writer asked for it, however it was typed (command line or counter screen).

use keno_api::set_bets::SetBetMode;
use keno_api::tickets::{BetRequest, SaleRequest, Schedule, Tender, Tenders, Ticket};

#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// The bet as `shared/API.md` writes it.
    pub bet: BetRequest,
    pub schedule: Schedule,
    pub amount_cents: u64,
    pub games: u32,
    /// What pays besides cash (rule 6.1): vouchers and winning tickets, in order.
    pub tenders: Vec<Tender>,
    /// Rule 5.4: the SHA-256 of the scanned entry form it was read from (none when keyed).
    pub entry_form: Option<String>,
}

impl Order {
    /// The sale's body under `request_id`.
    pub fn body(&self, request_id: &str) -> SaleRequest {
        SaleRequest {
            request_id: request_id.to_string(),
            bet: self.bet.clone(),
            schedule: self.schedule,
            amount_per_way_cents: self.amount_cents,
            games: self.games,
            // No `tender` at all for a cash sale, as before the types were shared.
            tender: (!self.tenders.is_empty()).then(|| Tenders::Many(self.tenders.clone())),
            entry_form_sha256: self.entry_form.clone(),
        }
    }

    /// The same selections again (replay): a ticket's groups and combinations as a new order.
    pub fn replay(ticket: &Ticket) -> Option<Order> {
        let bet = match ticket.bet_type.as_str() {
            // The same set, played the same way: a random set bet gets fresh numbers.
            "set_bet" => {
                let set = ticket.set_bet.as_ref()?;
                BetRequest::SetBet {
                    set: set.id,
                    mode: set.mode,
                }
            }
            "way" => BetRequest::Way {
                groups: ticket.groups.clone(),
                combine: ticket.combine.clone(),
            },
            _ => BetRequest::Standard {
                spots: ticket.groups.first()?.clone(),
            },
        };
        Some(Order {
            bet,
            schedule: ticket.schedule,
            amount_cents: u64::try_from(ticket.amount_per_way_cents).ok()?,
            games: u32::try_from(ticket.games).ok()?,
            // A replay is paid afresh, and keyed: the form was the first ticket's.
            tenders: Vec::new(),
            entry_form: None,
        })
    }
}

/// A set bet (rule 6.3(h)): set `set` of the catalogue, its own numbers or fresh ones.
pub fn set_bet(set: i64, random: bool) -> BetRequest {
    BetRequest::SetBet {
        set,
        mode: if random {
            SetBetMode::Random
        } else {
            SetBetMode::Fixed
        },
    }
}

/// A fresh request id: 96 random bits from the OS.
pub fn new_request_id() -> String {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).expect("OS randomness");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
