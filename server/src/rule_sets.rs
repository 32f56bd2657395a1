//! The rule sets games were played under, by hash, from the `rule_sets` table.
//!
//! A game is settled under the rule set recorded on it when it opened (pro-rating and jackpot
//! pools need one rule set for the whole game), so a restart with a new rule set changes only
//! the games opened after it. `keno-server serve` refuses a new rule set that could not settle
//! the tickets already sold for games still to come (see [`check_sold_tickets`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use diesel::prelude::*;
use keno_core::{RuleSet, TicketStatus};

use crate::db::schema::{games, rule_sets, tickets};
use crate::db::DbConnection;
use crate::tickets::TicketRow;

pub struct RuleSets {
    known: Mutex<HashMap<String, Arc<RuleSet>>>,
}

impl RuleSets {
    pub fn new(hash: &str, current: Arc<RuleSet>) -> RuleSets {
        RuleSets {
            known: Mutex::new(HashMap::from([(hash.to_string(), current)])),
        }
    }

    /// The rule set of `hash`, read from the database the first time.
    pub fn get(&self, conn: &mut DbConnection, hash: &str) -> anyhow::Result<Arc<RuleSet>> {
        if let Some(r) = self
            .known
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(hash)
        {
            return Ok(r.clone());
        }
        let body: String = rule_sets::table
            .find(hash)
            .select(rule_sets::body)
            .first(conn)
            .with_context(|| format!("rule set {hash} is not in the database"))?;
        let rules = Arc::new(
            RuleSet::from_toml_str(&body).with_context(|| format!("stored rule set {hash}"))?,
        );
        self.known
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(hash.to_string(), rules.clone());
        Ok(rules)
    }
}

/// Every ticket sold for games not yet opened will be settled under `rules`: refuses (with the
/// serials) if one of them cannot be, say because its schedule is gone or no longer approved.
pub fn check_sold_tickets(conn: &mut DbConnection, rules: &RuleSet) -> anyhow::Result<()> {
    let newest: i64 = games::table
        .select(diesel::dsl::max(games::number))
        .first::<Option<i64>>(conn)?
        .unwrap_or(0);
    let sold: Vec<TicketRow> = tickets::table
        .filter(tickets::status.eq(TicketStatus::Active.as_str()))
        .filter(tickets::last_game.gt(newest))
        .select(TicketRow::as_select())
        .load(conn)?;
    let refused: Vec<String> = sold
        .iter()
        .filter(|t| t.last_played_game() > newest)
        .filter_map(|t| t.plan(rules).err().map(|e| format!("{}: {e:#}", t.serial)))
        .collect();
    if !refused.is_empty() {
        anyhow::bail!(
            "this rule set cannot settle {} ticket(s) already sold for games still to come; \
             keep the rule set in force until they are played or cancelled:\n  {}",
            refused.len(),
            refused.join("\n  ")
        );
    }
    Ok(())
}
