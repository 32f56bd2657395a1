//! The rule sets games were played under, by hash, from the `rule_sets` table.
//!
//! A game is settled under the rule set recorded on it when it opened (pro-rating and jackpot
//! pools need one rule set for the whole game), so a restart with a new rule set changes only
//! the games opened after it. `keno-server serve` refuses a new rule set that could not settle
//! the tickets already sold for games still to come (see `tickets::check_sold_tickets`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use diesel::prelude::*;
use keno_core::RuleSet;

use crate::db::schema::rule_sets;
use crate::db::DbConnection;

/// A clone shares the rule sets already read (a task's copy reads each one once too).
#[derive(Clone)]
pub struct RuleSets {
    known: Arc<Mutex<HashMap<String, Arc<RuleSet>>>>,
}

impl RuleSets {
    /// None known yet: each is read from the database when first asked for (the audit's tools).
    pub fn from_database() -> RuleSets {
        RuleSets {
            known: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    pub fn new(hash: &str, current: Arc<RuleSet>) -> RuleSets {
        RuleSets {
            known: Arc::new(Mutex::new(HashMap::from([(hash.to_string(), current)]))),
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
