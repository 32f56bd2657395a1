//! The set-bet catalogue, the approvals of Special 3 and the early closures of Keno (rule
//! 16.2) against their entries, and every set
//! bet's numbers against its set: a fixed one plays the set's groups, a random one groups of
//! the same sizes, each with the set's combinations.

use std::collections::{BTreeMap, HashMap, HashSet};

use diesel::prelude::*;
use serde_json::Value;

use super::chain::Trail;
use super::Report;
use crate::audit::queries::stored_json;
use crate::closures::ClosureRow;
use crate::db::schema::{keno_closures, set_bet_tickets, set_bets, special3_approvals, tickets};
use crate::db::DbConnection;
use crate::set_bets::SetBetRow;
use crate::special3::ApprovalRow;

pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    let sets: Vec<SetBetRow> = set_bets::table
        .order(set_bets::id)
        .select(SetBetRow::as_select())
        .load(conn)?;
    let listed: Vec<Listed> = sets
        .iter()
        .map(|s| Listed {
            id: s.id,
            label: &s.name,
            added: s.created_payload(),
            ended_at: s.retired_at,
            ended: s.retired_payload(),
        })
        .collect();
    SET_BETS.check(&listed, &trail.sets_created, &trail.sets_retired, report);
    let sold = check_set_bets_sold(conn, trail, &sets, report)?;
    let approvals: Vec<ApprovalRow> = special3_approvals::table
        .order(special3_approvals::id)
        .select(ApprovalRow::as_select())
        .load(conn)?;
    let listed: Vec<Listed> = approvals
        .iter()
        .map(|a| Listed {
            id: a.id,
            label: &a.reference,
            added: a.recorded_payload(),
            ended_at: a.withdrawn_at,
            ended: a.withdrawn_payload(),
        })
        .collect();
    let (recorded, withdrawn) = (&trail.approvals_recorded, &trail.approvals_withdrawn);
    APPROVALS.check(&listed, recorded, withdrawn, report);
    let closures = check_closures(conn, trail, report)?;
    report.checked(format!(
        "{} set bets, {} tickets sold from them, {} approvals of Special 3, {} early \
         closures of Keno",
        sets.len(),
        sold,
        approvals.len(),
        closures
    ));
    Ok(())
}

/// Each early closure of Keno (rule 16.2) against the entries of its scheduling and its
/// withdrawal; how many there are.
fn check_closures(
    conn: &mut DbConnection,
    trail: &Trail,
    report: &mut Report,
) -> anyhow::Result<usize> {
    let closures: Vec<ClosureRow> = keno_closures::table
        .order(keno_closures::id)
        .select(ClosureRow::as_select())
        .load(conn)?;
    let listed: Vec<Listed> = closures
        .iter()
        .map(|c| Listed {
            id: c.id,
            label: &c.keno_day,
            added: c.scheduled_payload(),
            ended_at: c.withdrawn_at,
            ended: c.withdrawn_payload(),
        })
        .collect();
    let (scheduled, withdrawn) = (&trail.closures_scheduled, &trail.closures_withdrawn);
    CLOSURES.check(&listed, scheduled, withdrawn, report);
    Ok(closures.len())
}

/// A kind of record kept as a list: each added once, and ended (retired, withdrawn) at most
/// once, each with its entry in the trail.
struct List {
    /// What one is called: "set bet".
    kind: &'static str,
    /// What the entry of its addition is called.
    added: &'static str,
    /// How one ends: "retired".
    ended: &'static str,
    /// The field of the ending's entry that says when.
    ended_at: &'static str,
    /// Where the records are kept.
    kept_in: &'static str,
}

const SET_BETS: List = List {
    kind: "set bet",
    added: "the set added to the catalogue",
    ended: "retired",
    ended_at: "retired_at",
    kept_in: "the catalogue",
};

const APPROVALS: List = List {
    kind: "Special 3 approval",
    added: "the approval recorded",
    ended: "withdrawn",
    ended_at: "withdrawn_at",
    kept_in: "the record",
};

const CLOSURES: List = List {
    kind: "early closure of Keno",
    added: "the closure scheduled",
    ended: "withdrawn",
    ended_at: "withdrawn_at",
    kept_in: "the record",
};

/// One record of a list, as its entries must read.
struct Listed<'a> {
    id: i64,
    label: &'a str,
    added: Value,
    ended_at: Option<i64>,
    ended: Option<Value>,
}

impl List {
    /// Each record against the entries of its addition and its ending; and none removed.
    fn check(
        &self,
        records: &[Listed],
        added: &BTreeMap<i64, Value>,
        ended: &BTreeMap<i64, Value>,
        report: &mut Report,
    ) {
        let what = self.kind;
        for r in records {
            let (id, label) = (r.id, r.label);
            match added.get(&id) {
                None => report.differ(format!("{what} {id} ({label}) is not in the audit trail")),
                Some(p) if *p != r.added => {
                    report.differ(format!("{what} {id} ({label}) differs from {}", self.added))
                }
                Some(_) => {}
            }
            if ended.get(&id) != r.ended.as_ref() {
                report.differ(format!(
                    "{what} {id} ({label}): {} at {:?}, the trail says {:?}",
                    self.ended,
                    r.ended_at,
                    ended.get(&id).map(|p| &p[self.ended_at])
                ));
            }
        }
        let known: HashSet<i64> = records.iter().map(|r| r.id).collect();
        for id in added.keys().filter(|id| !known.contains(id)) {
            report.differ(format!(
                "{what} {id} is in the audit trail but not in {}: it was removed",
                self.kept_in
            ));
        }
    }
}

/// Every ticket sold from a set (from a checkpoint, those its later entries name) against the
/// set; returns how many there are.
fn check_set_bets_sold(
    conn: &mut DbConnection,
    trail: &Trail,
    sets: &[SetBetRow],
    report: &mut Report,
) -> anyhow::Result<usize> {
    let groups = set_groups(sets, report);
    let sets: HashMap<i64, &SetBetRow> = sets.iter().map(|s| (s.id, s)).collect();
    let query = || {
        set_bet_tickets::table
            .inner_join(tickets::table.on(tickets::serial.eq(set_bet_tickets::serial)))
            .select((
                tickets::serial,
                tickets::groups_json,
                tickets::combine_json,
                set_bet_tickets::set_bet_id,
                set_bet_tickets::mode,
            ))
            .into_boxed()
    };
    type Sold = (String, String, String, i64, String);
    let sold: Vec<Sold> = match &trail.since {
        None => query().load(conn)?,
        Some(since) => {
            let serials: Vec<&String> = since.tickets.iter().collect();
            let mut sold = Vec::new();
            for chunk in serials.chunks(super::PAGE as usize) {
                sold.extend(
                    query()
                        .filter(tickets::serial.eq_any(chunk))
                        .load::<Sold>(conn)?,
                );
            }
            sold
        }
    };
    for (serial, groups_json, combine_json, id, mode) in &sold {
        let Some(set) = sets.get(id) else {
            report.differ(format!(
                "ticket {serial}: its set bet {id} is not in the catalogue"
            ));
            continue;
        };
        if !plays(groups_json, mode, groups.get(id)) || *combine_json != set.combine_json {
            report.differ(format!(
                "ticket {serial}: its numbers are not a {mode} play of set bet {id} ({})",
                set.name
            ));
        }
    }
    Ok(sold.len())
}

/// Each set's groups, by id; a set whose stored groups cannot be read is reported and left out.
fn set_groups(sets: &[SetBetRow], report: &mut Report) -> HashMap<i64, Vec<Vec<u8>>> {
    let mut groups = HashMap::new();
    for s in sets {
        let record = format!("set bet {} ({})", s.id, s.name);
        match stored_json(&record, "groups_json", &s.groups_json) {
            Ok(g) => {
                groups.insert(s.id, g);
            }
            Err(e) => report.differ(format!("{e:#}")),
        }
    }
    groups
}

/// Whether a ticket's stored groups are a `mode` play of the set's. Groups that cannot be read,
/// the ticket's or the set's, play nothing: they are reported where they are stored.
fn plays(groups_json: &str, mode: &str, set: Option<&Vec<Vec<u8>>>) -> bool {
    let (Ok(groups), Some(set)) = (serde_json::from_str::<Vec<Vec<u8>>>(groups_json), set) else {
        return false;
    };
    let shape = |g: &[Vec<u8>]| g.iter().map(Vec::len).collect::<Vec<_>>();
    match mode {
        "fixed" => groups == *set,
        "random" => shape(&groups) == shape(set),
        _ => false,
    }
}
