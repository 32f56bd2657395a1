//! The catalogue of set bets (rule 6.3(h)): "a way ticket from a catalogue of pre-selected
//! ticket types", played "Fixed" (the numbers illustrated) or "Random" (numbers of the same
//! shape chosen for the player).
//!
//! A supervisor adds sets and retires them; anyone may list them (terminals, displays). A set is
//! never changed or removed: a retired set is no longer sold, and the tickets sold from it keep
//! naming it. Each addition and retirement enters the audit trail in its transaction.
//!
//! A set bet is a way bet with provenance: selling one (`tickets/sale.rs`) plays the set's
//! groups and combinations (or fresh numbers in groups of the same sizes) as a way ticket,
//! priced, limited and settled exactly as that way ticket, and stores the numbers played with the
//! ticket, so settling or reprinting it needs nothing from the catalogue.

use std::collections::HashSet;

use diesel::prelude::*;
use getrandom::SysRng;
use keno_core::{Act, Bet, RuleSet, ScheduleId, SetMode, Standing};
use rand_core::UnwrapErr;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::approvals::{self, approvable};
use crate::db::schema::set_bets;
use crate::db::{now_micros, per_backend, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use crate::store::hold::held;
use crate::tickets::ways_lines;
use keno_api::Refusal;
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::set_bets::{SetBet, SetBetMode};

diesel::define_sql_function! {
    /// The name compared without case, as the unique index on the sets on sale compares it.
    fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

/// The longest name: "SET: " and the name and " (RANDOM)" fit one receipt line.
pub const MAX_NAME: usize = 32;
const MAX_DESCRIPTION: usize = 200;

#[derive(Queryable, Selectable, Clone, Debug)]
#[diesel(table_name = set_bets)]
pub struct SetBetRow {
    pub id: i64,
    pub name: String,
    pub description: Option<String>,
    pub groups_json: String,
    pub combine_json: String,
    pub amount_per_way_cents: i64,
    pub created_by: String,
    pub created_at: i64,
    pub retired_at: Option<i64>,
    pub retired_by: Option<String>,
    pub retired_reason: Option<String>,
}

impl SetBetRow {
    /// Its groups and combinations, as stored: a set whose columns do not read is an error,
    /// never a set of nothing.
    pub fn shape(&self) -> anyhow::Result<(Vec<Vec<u8>>, Vec<u8>)> {
        let what = format!("set bet {}", self.id);
        Ok((
            crate::tickets::stored(&what, "groups_json", &self.groups_json)?,
            crate::tickets::stored(&what, "combine_json", &self.combine_json)?,
        ))
    }

    /// The bet the set makes, played `mode`.
    pub fn bet(&self, mode: SetMode) -> anyhow::Result<Bet> {
        let (groups, combine) = self.shape()?;
        Ok(Bet::SetBet {
            groups,
            combine,
            mode,
        })
    }

    /// The audit trail's record of it as added (`set_bet_created`).
    pub fn created_payload(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "description": self.description,
            "groups_json": self.groups_json,
            "combine_json": self.combine_json,
            "amount_per_way_cents": self.amount_per_way_cents,
            "created_by": self.created_by,
            "created_at": self.created_at,
        })
    }

    /// The audit trail's record of its retirement (`set_bet_retired`), if retired.
    pub fn retired_payload(&self) -> Option<serde_json::Value> {
        self.retired_at.map(|at| {
            let mut payload = serde_json::json!({
                "retired_at": at,
                "retired_by": self.retired_by,
            });
            // Only when given: a retirement of the first API reads as it was written.
            if let Some(reason) = &self.retired_reason {
                payload["reason"] = reason.as_str().into();
            }
            payload
        })
    }
}

// A set on sale is withdrawn by retiring it; its entries carry what `audit verify` compares.
approvable! {
    SetBetRow in set_bets as "set bet",
    state: Standing = |s| Standing::from_withdrawal(s.retired_at),
    refused: |_| Refusal::AlreadyRetired,
    subject: |s| s.id.to_string(),
    kind: |act| if act.is_some() { crate::audit::kind::EntryKind::SetBetRetired } else { crate::audit::kind::EntryKind::SetBetCreated },
    payload: |s| s.retired_payload().unwrap_or_else(|| s.created_payload()),
}

/// A set to add to the catalogue.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSetBet {
    /// Shown at the terminal and printed on the receipt: 1 to 32 characters, not the name of
    /// another set on sale (case aside).
    pub name: String,
    /// The numbers in groups, as a way ticket's (a group of one number is a king).
    pub groups: Vec<Vec<u8>>,
    /// For each k, every union of k groups is one way.
    pub combine: Vec<u8>,
    /// The amount per way suggested to the player: a wager rule 6.2(d) allows for the set's
    /// ways. The sale names its own amount.
    pub amount_per_way_cents: u64,
    /// Up to 200 characters, for the terminal's and the displays' list.
    #[serde(default)]
    pub description: Option<String>,
}

/// The set as the API shows it, with its ways under `rules`.
pub fn set_bet(row: SetBetRow, rules: &RuleSet) -> DomainResult<SetBet> {
    let (groups, combine) = row.shape()?;
    // A set added under an earlier rule set may not plan under this one: it lists no ways.
    // (A fixed set draws nothing from the generator.)
    let plan = row
        .bet(SetMode::Fixed)?
        .mark(rules, ScheduleId::Standard, &mut UnwrapErr(SysRng))
        .and_then(|marks| rules.plan(marks, ScheduleId::Standard))
        .ok();
    let way_count = plan.as_ref().map_or(0, |p| p.ways.len() as u64);
    Ok(SetBet {
        id: row.id,
        groups,
        combine,
        ways: plan.as_ref().map(ways_lines).unwrap_or_default(),
        way_count,
        game_cost_cents: way_count * row.amount_per_way_cents as u64,
        amount_per_way_cents: row.amount_per_way_cents,
        on_sale: row.retired_at.is_none(),
        created_at: rfc3339(row.created_at),
        retired_at: row.retired_at.map(rfc3339),
        retired_reason: row.retired_reason.clone(),
        name: row.name,
        description: row.description,
    })
}

pub fn find(conn: &mut DbConnection, id: i64) -> QueryResult<Option<SetBetRow>> {
    set_bets::table
        .find(id)
        .select(SetBetRow::as_select())
        .first(conn)
        .optional()
}

/// Of `ids`, those on sale now, each held against its retirement until the transaction ends
/// (PostgreSQL: `FOR SHARE`; SQLite: the writer turn).
pub fn hold_on_sale(conn: &mut DbConnection, ids: &[i64]) -> QueryResult<HashSet<i64>> {
    let query = set_bets::table
        .filter(set_bets::id.eq_any(ids))
        .filter(set_bets::retired_at.is_null())
        .select(set_bets::id);
    let held: Vec<i64> = held!(conn, Hold::Share, query, |c, q| q.load(c))?;
    Ok(held.into_iter().collect())
}

/// A page of the catalogue, oldest first: `limit` sets numbered above `after`, those on sale
/// only unless `all`.
pub fn page(
    conn: &mut DbConnection,
    all: bool,
    (after, limit): (i64, i64),
) -> QueryResult<Vec<SetBetRow>> {
    let mut q = set_bets::table
        .filter(set_bets::id.gt(after))
        .order(set_bets::id)
        .limit(limit)
        .select(SetBetRow::as_select())
        .into_boxed();
    if !all {
        q = q.filter(set_bets::retired_at.is_null());
    }
    q.load(conn)
}

/// Adds `set` to the catalogue, added by `by`.
pub fn create(conn: &mut DbConnection, set: NewSet, by: &str) -> DomainResult<SetBetRow> {
    let name = set.name.clone();
    set.insert(conn, by).map_err(|e| {
        // Another supervisor added the name meanwhile (the unique index on the sets on sale).
        if e.is_duplicate() {
            name_taken(&name)
        } else {
            e
        }
    })
}

/// Retires set `id` for `by`, saying why (none from a client of the first API): it is no
/// longer sold.
pub fn retire(
    conn: &mut DbConnection,
    id: i64,
    by: &str,
    reason: Option<&str>,
) -> DomainResult<SetBetRow> {
    approvals::decide::<SetBetRow, _>(conn, id, Act::Withdraw, by, |conn, _, _| {
        let target = set_bets::table.find(id);
        Ok(
            diesel::update(target.filter(set_bets::retired_at.is_null()))
                .set((
                    set_bets::retired_at.eq(now_micros()),
                    set_bets::retired_by.eq(by),
                    set_bets::retired_reason.eq(reason),
                ))
                .execute(conn)?,
        )
    })
}

fn name_taken(name: &str) -> Failure {
    Failure::refuse(
        Refusal::SetNameTaken,
        format!(
            "a set on sale is already named {name:?}: choose another name, or retire that set first"
        ),
    )
}

/// A set to add to the catalogue, checked as the way ticket it plays.
pub struct NewSet {
    name: String,
    description: Option<String>,
    groups_json: String,
    combine_json: String,
    amount: i64,
}

impl NewSet {
    /// Checks `r` under `rules` as the way ticket it plays, at its suggested amount.
    pub fn check(rules: &RuleSet, r: NewSetBet) -> DomainResult<NewSet> {
        let name = crate::reason::kept("a set's name", &r.name, MAX_NAME, Refusal::InvalidName)?;
        let description = crate::reason::kept_optional(
            "a set's description",
            r.description.as_deref(),
            MAX_DESCRIPTION,
            Refusal::InvalidDescription,
        )?;
        // Checked as the way ticket it plays, at the suggested amount for one game.
        let bet = Bet::SetBet {
            groups: r.groups,
            combine: r.combine,
            mode: SetMode::Fixed,
        };
        let marks = bet.mark(rules, ScheduleId::Standard, &mut UnwrapErr(SysRng))?;
        let plan = rules.plan(marks, ScheduleId::Standard)?;
        rules.price(&plan, r.amount_per_way_cents, 1)?;
        let groups: Vec<Vec<u8>> = plan.groups.iter().map(|g| g.to_vec()).collect();
        Ok(NewSet {
            name,
            description,
            groups_json: serde_json::to_string(&groups).expect("numbers serialize"),
            combine_json: serde_json::to_string(&plan.combine).expect("numbers serialize"),
            amount: r.amount_per_way_cents as i64,
        })
    }

    fn insert(self, conn: &mut DbConnection, by: &str) -> DomainResult<SetBetRow> {
        let same_name: i64 = set_bets::table
            .filter(lower(set_bets::name).eq(self.name.to_lowercase()))
            .filter(set_bets::retired_at.is_null())
            .count()
            .get_result(conn)?;
        if same_name > 0 {
            return Err(name_taken(&self.name));
        }
        let row: SetBetRow = per_backend!(conn, |c| diesel::insert_into(set_bets::table)
            .values((
                set_bets::name.eq(&self.name),
                set_bets::description.eq(&self.description),
                set_bets::groups_json.eq(&self.groups_json),
                set_bets::combine_json.eq(&self.combine_json),
                set_bets::amount_per_way_cents.eq(self.amount),
                set_bets::created_by.eq(by),
                set_bets::created_at.eq(now_micros()),
            ))
            .returning(SetBetRow::as_returning())
            .get_result(c))?;
        approvals::proposed(conn, &row, by)?;
        Ok(row)
    }
}
