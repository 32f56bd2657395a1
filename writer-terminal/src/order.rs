//! A sale as the writer asked for it, however it was typed (command line or counter screen).

use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// The bet as `shared/API.md` writes it.
    pub bet: Value,
    pub schedule: String,
    pub amount_cents: u64,
    pub games: u32,
    /// What pays besides cash (rule 6.1): `{"voucher": CODE}` or `{"ticket": SERIAL}`, in order.
    pub tenders: Vec<Value>,
}

impl Order {
    /// The sale's body under `request_id`.
    pub fn body(&self, request_id: &str) -> Value {
        let mut body = json!({
            "request_id": request_id,
            "bet": self.bet,
            "schedule": self.schedule,
            "amount_per_way_cents": self.amount_cents,
            "games": self.games,
        });
        if !self.tenders.is_empty() {
            body["tender"] = Value::Array(self.tenders.clone());
        }
        body
    }

    /// The same selections again (replay): a ticket's groups and combinations as a new order.
    pub fn replay(ticket: &Value) -> Option<Order> {
        let groups = ticket["groups"].clone();
        let bet = if ticket["bet_type"] == "set_bet" {
            // The same set, played the same way: a random set bet gets fresh numbers.
            let set = &ticket["set_bet"];
            json!({"type": "set_bet", "set": set["id"].as_i64()?, "mode": set["mode"].as_str()?})
        } else if ticket["bet_type"] == "way" {
            json!({"type": "way", "groups": groups, "combine": ticket["combine"]})
        } else {
            json!({"type": "standard", "spots": groups.get(0)?})
        };
        Some(Order {
            bet,
            schedule: ticket["schedule"].as_str()?.to_string(),
            amount_cents: ticket["amount_per_way_cents"].as_u64()?,
            games: ticket["games"].as_u64()? as u32,
            // A replay is paid afresh.
            tenders: Vec::new(),
        })
    }
}

/// A set bet (rule 6.3(h)): set `set` of the catalogue, its own numbers or fresh ones.
pub fn set_bet(set: i64, random: bool) -> Value {
    json!({"type": "set_bet", "set": set, "mode": if random { "random" } else { "fixed" }})
}

/// A fresh request id: 96 random bits from the OS.
pub fn new_request_id() -> String {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).expect("OS randomness");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
