//! `keno-server audit verify`: proves the record was not changed behind the server's back.
//!
//! 1. The hash chain: every entry's hash is recomputed from the one before; a changed,
//!    removed or inserted entry breaks it.
//! 2. Every record against its entry: each ticket as sold (a set bet with its set), cancelled
//!    and paid; each voucher as issued, each of its spends and its cash-out, and its balance as
//!    their sum; each ticket tendered for a sale; each principal; each rule set (its body
//!    against its hash); each settled game's numbers, totals and results digest; each set of the
//!    set-bet catalogue as added and retired (and each set bet's numbers against its set); each
//!    approval of Special 3 as recorded and withdrawn.
//! 3. Every settled game settled again from the stored tickets and draw with the game's own
//!    rule set, and compared with the stored results.
//!
//! Records older than the trail (a database from before it) are checked by 3 only.

use std::collections::{BTreeMap, HashMap};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use keno_core::{GameState, PayMethod, RuleSet, TicketStatus};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::log::entry_hash;
use crate::db::schema::bonus_results;
use crate::db::schema::{
    audit_head, audit_log, game_settlements, games, principals, rule_sets, sale_tenders,
    set_bet_tickets, set_bets, special3_approvals, ticket_results, tickets, vouchers, way_results,
};
use crate::db::{Db, DbConnection};
use crate::set_bets::SetBetRow;
use crate::settlement::{
    compute, results_digest, BonusResultRow, TicketResultRow, Totals, WayResultRow,
};
use crate::special3::ApprovalRow;
use crate::tickets::sale::sold_payload;
use crate::tickets::TicketRow;
use crate::vouchers::{NewVoucher, VoucherRow, VoucherStatus};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[arg(long, env = "KENO_DATABASE_URL", default_value = crate::cli::DEFAULT_DATABASE)]
    pub database_url: String,
}

/// What the trail says of the records, gathered in one pass over it.
#[derive(Default)]
struct Trail {
    started_at: i64,
    /// Serial -> digest of the ticket as sold (its status left out: it changes).
    sold: HashMap<String, [u8; 32]>,
    cancelled: HashMap<String, Vec<Value>>,
    paid: HashMap<String, Value>,
    settled: BTreeMap<i64, Value>,
    principals: HashMap<String, Value>,
    rule_sets: HashMap<String, Value>,
    /// Code -> the voucher as issued.
    vouchers_issued: HashMap<String, Value>,
    /// Code -> each spend: (the ticket sold, cents).
    voucher_spends: HashMap<String, Vec<(String, i64)>>,
    voucher_cashed: HashMap<String, Value>,
    sets_created: BTreeMap<i64, Value>,
    sets_retired: BTreeMap<i64, Value>,
    approvals_recorded: BTreeMap<i64, Value>,
    approvals_withdrawn: BTreeMap<i64, Value>,
}

struct Report {
    problems: Vec<String>,
}

impl Report {
    fn differ(&mut self, what: String) {
        println!("DIFFERENCE: {what}");
        self.problems.push(what);
    }
}

pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    // The database as it is, never created or migrated, read in one snapshot that the
    // database itself keeps read-only.
    let db = Db::open_existing(&args.database_url, 1)?;
    let mut conn = db.conn()?;
    match &mut *conn {
        DbConnection::Sqlite(c) => c.batch_execute("PRAGMA query_only = ON")?,
        DbConnection::Pg(c) => c.batch_execute(
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY",
        )?,
    }
    let mut report = Report {
        problems: Vec::new(),
    };
    conn.transaction(|conn| -> anyhow::Result<()> {
        let trail = check_chain(conn, &mut report)?;
        check_tickets(conn, &trail, &mut report)?;
        check_vouchers(conn, &trail, &mut report)?;
        check_principals_and_rules(conn, &trail, &mut report)?;
        check_set_bets_and_approvals(conn, &trail, &mut report)?;
        check_settlements(conn, &trail, &mut report)
    })?;
    if report.problems.is_empty() {
        println!("verified: the audit trail is intact and every record matches it");
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "NOT VERIFIED: {} difference(s) between the record and its audit trail",
            report.problems.len()
        );
        Ok(ExitCode::from(1))
    }
}

/// A ticket as sold, without its status, hashed: what the trail's entry must match.
fn sold_digest(mut sold: Value) -> [u8; 32] {
    if let Some(map) = sold.as_object_mut() {
        map.remove("status");
    }
    Sha256::digest(sold.to_string().as_bytes()).into()
}

#[derive(Queryable)]
struct LogRow {
    seq: i64,
    recorded_at: i64,
    kind: String,
    subject: String,
    principal_id: Option<String>,
    payload: String,
    prev_hash: String,
    hash: String,
}

fn check_chain(conn: &mut DbConnection, report: &mut Report) -> anyhow::Result<Trail> {
    let (head_seq, head_hash, started_at): (i64, String, i64) = audit_head::table
        .find(1)
        .select((audit_head::seq, audit_head::hash, audit_head::started_at))
        .first(conn)
        .context("the audit trail's head")?;
    let mut trail = Trail {
        started_at,
        ..Trail::default()
    };
    let mut prev = "0".repeat(64);
    let mut expected_seq = 1;
    let mut broken = false;
    let mut after = 0;
    loop {
        let page: Vec<LogRow> = audit_log::table
            .filter(audit_log::seq.gt(after))
            .order(audit_log::seq)
            .limit(10_000)
            .load(conn)?;
        let full = page.len() == 10_000;
        for e in page {
            after = e.seq;
            if !broken {
                let hash = entry_hash(
                    &prev,
                    e.seq,
                    e.recorded_at,
                    &e.kind,
                    &e.subject,
                    e.principal_id.as_deref(),
                    &e.payload,
                );
                if e.seq != expected_seq || e.prev_hash != prev || e.hash != hash {
                    report.differ(format!(
                        "the audit chain breaks at entry {} ({} {}): an entry was changed, \
                         removed or inserted",
                        e.seq, e.kind, e.subject
                    ));
                    broken = true;
                }
            }
            prev = e.hash.clone();
            expected_seq = e.seq + 1;
            let payload: Value = serde_json::from_str(&e.payload).unwrap_or(Value::Null);
            match e.kind.as_str() {
                "ticket_sold" => {
                    trail.sold.insert(e.subject, sold_digest(payload));
                }
                "ticket_cancelled" => trail.cancelled.entry(e.subject).or_default().push(payload),
                "ticket_paid" => {
                    trail.paid.insert(e.subject, payload);
                }
                "game_settled" => {
                    trail.settled.insert(e.subject.parse()?, payload);
                }
                "principal_added" => {
                    trail.principals.insert(e.subject, payload);
                }
                "rule_set_recorded" => {
                    trail.rule_sets.insert(e.subject, payload);
                }
                "voucher_issued" => {
                    trail.vouchers_issued.insert(e.subject, payload);
                }
                "voucher_spent" => trail.voucher_spends.entry(e.subject).or_default().push((
                    payload["serial"].as_str().unwrap_or_default().to_string(),
                    payload["amount_cents"].as_i64().unwrap_or(-1),
                )),
                "voucher_cashed" => {
                    trail.voucher_cashed.insert(e.subject, payload);
                }
                "set_bet_created" => {
                    trail.sets_created.insert(e.subject.parse()?, payload);
                }
                "set_bet_retired" => {
                    trail.sets_retired.insert(e.subject.parse()?, payload);
                }
                "special3_approval_recorded" => {
                    trail.approvals_recorded.insert(e.subject.parse()?, payload);
                }
                "special3_approval_withdrawn" => {
                    trail
                        .approvals_withdrawn
                        .insert(e.subject.parse()?, payload);
                }
                _ => {}
            }
        }
        if !full {
            break;
        }
    }
    if !broken && (head_seq != expected_seq - 1 || head_hash != prev) {
        report.differ(format!(
            "the audit chain ends at entry {} but its head says {head_seq}: entries were removed \
             from the end",
            expected_seq - 1
        ));
    }
    println!("checked: the audit chain of {} entries", expected_seq - 1);
    Ok(trail)
}

fn check_tickets(
    conn: &mut DbConnection,
    trail: &Trail,
    report: &mut Report,
) -> anyhow::Result<()> {
    // The set each set bet was sold from, and how: part of what the trail recorded of its sale.
    let from_sets: HashMap<String, (i64, String)> = set_bet_tickets::table
        .select((
            set_bet_tickets::serial,
            set_bet_tickets::set_bet_id,
            set_bet_tickets::mode,
        ))
        .load::<(String, i64, String)>(conn)?
        .into_iter()
        .map(|(serial, id, mode)| (serial, (id, mode)))
        .collect();
    let mut after = String::new();
    let mut checked = 0usize;
    let mut seen = 0usize;
    loop {
        let page: Vec<TicketRow> = tickets::table
            .filter(tickets::serial.gt(&after))
            .order(tickets::serial)
            .limit(10_000)
            .select(TicketRow::as_select())
            .load(conn)?;
        let Some(last) = page.last() else { break };
        after = last.serial.clone();
        for t in &page {
            if t.issued_at < trail.started_at {
                continue;
            }
            checked += 1;
            let s = &t.serial;
            match trail.sold.get(s) {
                None => report.differ(format!("ticket {s} has no sale in the audit trail")),
                Some(d) => {
                    seen += 1;
                    let set = from_sets.get(s).map(|(id, mode)| (*id, mode.as_str()));
                    if *d != sold_digest(sold_payload(t, set)) {
                        report.differ(format!("ticket {s} differs from the ticket sold"));
                    }
                }
            }
            let cancels = trail.cancelled.get(s).map_or(&[][..], Vec::as_slice);
            let refunds: i64 = cancels
                .iter()
                .map(|c| c["refund_cents"].as_i64().unwrap_or(0))
                .sum();
            let from = cancels
                .iter()
                .filter_map(|c| c["cancelled_from_game"].as_i64())
                .min();
            if refunds != t.refund_cents || from != t.cancelled_from_game {
                report.differ(format!(
                    "ticket {s}: cancelled from game {:?} with {} refunded, the trail says {from:?} \
                     and {refunds}",
                    t.cancelled_from_game, t.refund_cents
                ));
            }
            let paid = trail.paid.get(s);
            let (trail_paid, trail_method) = paid.map_or((0, None), |p| {
                (
                    p["paid_cents"].as_i64().unwrap_or(-1),
                    p["pay_method"].as_str(),
                )
            });
            if trail_paid != t.paid_cents
                || trail_method != t.pay_method.map(PayMethod::as_str)
                || (t.status == TicketStatus::Paid) != paid.is_some()
            {
                report.differ(format!(
                    "ticket {s}: {} with {} paid, the trail says {trail_paid} paid",
                    t.status, t.paid_cents
                ));
            }
        }
    }
    if seen != trail.sold.len() {
        report.differ(format!(
            "the trail records {} sales but {seen} of them are in the tickets table: tickets \
             were removed",
            trail.sold.len()
        ));
    }
    println!("checked: {checked} tickets against their sale, cancellation and payment");
    Ok(())
}

fn check_vouchers(
    conn: &mut DbConnection,
    trail: &Trail,
    report: &mut Report,
) -> anyhow::Result<()> {
    // Every spend, by voucher; and every ticket tendered, with the sale it paid for.
    let mut spends: HashMap<String, Vec<(String, i64)>> = HashMap::new();
    let mut tendered: Vec<(String, String, i64)> = Vec::new();
    let rows: Vec<(String, String, String, i64, i64)> = sale_tenders::table
        .select((
            sale_tenders::serial,
            sale_tenders::kind,
            sale_tenders::reference,
            sale_tenders::covered_cents,
            sale_tenders::change_cents,
        ))
        .load(conn)?;
    for (serial, kind, reference, covered, change) in rows {
        if kind == "voucher" {
            spends.entry(reference).or_default().push((serial, covered));
        } else {
            tendered.push((reference, serial, covered + change));
        }
    }
    let mut after = String::new();
    let mut checked = 0usize;
    let mut seen = 0usize;
    loop {
        let page: Vec<VoucherRow> = vouchers::table
            .filter(vouchers::code.gt(&after))
            .order(vouchers::code)
            .limit(10_000)
            .select(VoucherRow::as_select())
            .load(conn)?;
        let Some(last) = page.last() else { break };
        after = last.code.clone();
        for v in &page {
            checked += 1;
            let c = &v.code;
            match trail.vouchers_issued.get(c) {
                None => report.differ(format!("voucher {c} has no issue in the audit trail")),
                Some(issued) => {
                    seen += 1;
                    if *issued != serde_json::json!(NewVoucher::from(v)) {
                        report.differ(format!("voucher {c} differs from the voucher issued"));
                    }
                }
            }
            let mut stored = spends.remove(c).unwrap_or_default();
            let mut recorded = trail.voucher_spends.get(c).cloned().unwrap_or_default();
            stored.sort();
            recorded.sort();
            if stored != recorded {
                report.differ(format!(
                    "voucher {c}: spent {:?}, the trail says {recorded:?}",
                    stored
                ));
            }
            let cashed = trail.voucher_cashed.get(c);
            let trail_cashed = cashed.map_or(0, |p| p["cashed_cents"].as_i64().unwrap_or(-1));
            if trail_cashed != v.cashed_cents
                || (v.status == VoucherStatus::Cashed) != cashed.is_some()
            {
                report.differ(format!(
                    "voucher {c}: {} with {} cashed out, the trail says {trail_cashed}",
                    v.status, v.cashed_cents
                ));
            }
            let spent: i64 = stored.iter().map(|(_, cents)| cents).sum();
            let balance = v.amount_cents - spent - v.cashed_cents;
            let status = match (v.cashed_cents > 0, balance) {
                (true, _) => VoucherStatus::Cashed,
                (false, 0) => VoucherStatus::Spent,
                _ => VoucherStatus::Active,
            };
            if v.balance_cents != balance || v.status != status {
                report.differ(format!(
                    "voucher {c}: balance {} ({}), but {} issued less {spent} spent and {} \
                     cashed out leaves {balance} ({status})",
                    v.balance_cents, v.status, v.amount_cents, v.cashed_cents
                ));
            }
        }
    }
    for (code, spent) in spends {
        report.differ(format!(
            "spends {spent:?} name voucher {code}, which does not exist"
        ));
    }
    if seen != trail.vouchers_issued.len() {
        report.differ(format!(
            "the trail records {} vouchers issued but {seen} of them are in the vouchers table: \
             vouchers were removed",
            trail.vouchers_issued.len()
        ));
    }
    // A ticket tendered is paid whole by tender, for the sale that names it.
    for (serial, sale, worth) in &tendered {
        let paid = trail.paid.get(serial);
        let ok = paid.is_some_and(|p| {
            p["pay_method"] == PayMethod::Tender.as_str()
                && p["for_ticket"].as_str() == Some(sale.as_str())
                && p["paid_cents"].as_i64() == Some(*worth)
        });
        if !ok {
            report.differ(format!(
                "ticket {serial} is tendered for ticket {sale} ({worth} cents), but the trail \
                 records no such payment"
            ));
        }
    }
    println!(
        "checked: {checked} vouchers against their issue, spends and cash-out; {} tickets tendered",
        tendered.len()
    );
    Ok(())
}

fn check_principals_and_rules(
    conn: &mut DbConnection,
    trail: &Trail,
    report: &mut Report,
) -> anyhow::Result<()> {
    type P = (
        String,
        String,
        String,
        Option<String>,
        Option<String>,
        String,
        i64,
    );
    let rows: Vec<P> = principals::table
        .select((
            principals::id,
            principals::role,
            principals::name,
            principals::site,
            principals::terminal,
            principals::token_hash,
            principals::created_at,
        ))
        .load(conn)?;
    for (id, role, name, site, terminal, token, created) in rows {
        if created < trail.started_at {
            continue;
        }
        let expected = serde_json::json!({
            "role": role, "name": name, "site": site, "terminal": terminal,
            "token_sha256": token,
        });
        if trail.principals.get(&id) != Some(&expected) {
            report.differ(format!(
                "principal {id} ({role} {name}) differs from the one added"
            ));
        }
    }
    let sets: Vec<(String, String, String, i64)> = rule_sets::table
        .select((
            rule_sets::hash,
            rule_sets::name,
            rule_sets::body,
            rule_sets::created_at,
        ))
        .load(conn)?;
    for (hash, name, body, created) in sets {
        if hex::encode(Sha256::digest(body.as_bytes())) != hash {
            report.differ(format!("rule set {hash} ({name}): its body was changed"));
        }
        if created >= trail.started_at && !trail.rule_sets.contains_key(&hash) {
            report.differ(format!(
                "rule set {hash} ({name}) is not in the audit trail"
            ));
        }
    }
    println!("checked: principals and rule sets");
    Ok(())
}

/// The set-bet catalogue and the approvals of Special 3 against their entries, and every set
/// bet's numbers against its set: a fixed one plays the set's groups, a random one groups of
/// the same sizes, each with the set's combinations.
fn check_set_bets_and_approvals(
    conn: &mut DbConnection,
    trail: &Trail,
    report: &mut Report,
) -> anyhow::Result<()> {
    let sets: Vec<SetBetRow> = set_bets::table
        .order(set_bets::id)
        .select(SetBetRow::as_select())
        .load(conn)?;
    for set in &sets {
        let (id, name) = (set.id, &set.name);
        match trail.sets_created.get(&id) {
            None => report.differ(format!("set bet {id} ({name}) is not in the audit trail")),
            Some(p) if *p != set.created_payload() => report.differ(format!(
                "set bet {id} ({name}) differs from the set added to the catalogue"
            )),
            Some(_) => {}
        }
        if trail.sets_retired.get(&id) != set.retired_payload().as_ref() {
            report.differ(format!(
                "set bet {id} ({name}): retired at {:?}, the trail says {:?}",
                set.retired_at,
                trail.sets_retired.get(&id).map(|p| &p["retired_at"])
            ));
        }
    }
    let known: std::collections::HashSet<i64> = sets.iter().map(|s| s.id).collect();
    for id in trail.sets_created.keys().filter(|id| !known.contains(id)) {
        report.differ(format!(
            "set bet {id} is in the audit trail but not in the catalogue: it was removed"
        ));
    }
    let sets: HashMap<i64, SetBetRow> = sets.into_iter().map(|s| (s.id, s)).collect();
    let sold: Vec<(String, String, String, i64, String)> = set_bet_tickets::table
        .inner_join(tickets::table.on(tickets::serial.eq(set_bet_tickets::serial)))
        .select((
            tickets::serial,
            tickets::groups_json,
            tickets::combine_json,
            set_bet_tickets::set_bet_id,
            set_bet_tickets::mode,
        ))
        .load(conn)?;
    for (serial, groups_json, combine_json, id, mode) in &sold {
        let Some(set) = sets.get(id) else {
            report.differ(format!(
                "ticket {serial}: its set bet {id} is not in the catalogue"
            ));
            continue;
        };
        let groups: Vec<Vec<u8>> = serde_json::from_str(groups_json).unwrap_or_default();
        let shape = |g: &[Vec<u8>]| g.iter().map(Vec::len).collect::<Vec<_>>();
        let plays = match mode.as_str() {
            "fixed" => groups == set.groups(),
            "random" => shape(&groups) == shape(&set.groups()),
            _ => false,
        };
        if !plays || *combine_json != set.combine_json {
            report.differ(format!(
                "ticket {serial}: its numbers are not a {mode} play of set bet {id} ({})",
                set.name
            ));
        }
    }

    let approvals: Vec<ApprovalRow> = special3_approvals::table
        .order(special3_approvals::id)
        .select(ApprovalRow::as_select())
        .load(conn)?;
    for a in &approvals {
        let id = a.id;
        match trail.approvals_recorded.get(&id) {
            None => report.differ(format!(
                "Special 3 approval {id} ({}) is not in the audit trail",
                a.reference
            )),
            Some(p) if *p != a.recorded_payload() => report.differ(format!(
                "Special 3 approval {id} ({}) differs from the approval recorded",
                a.reference
            )),
            Some(_) => {}
        }
        if trail.approvals_withdrawn.get(&id) != a.withdrawn_payload().as_ref() {
            report.differ(format!(
                "Special 3 approval {id} ({}): withdrawn at {:?}, the trail says {:?}",
                a.reference,
                a.withdrawn_at,
                trail
                    .approvals_withdrawn
                    .get(&id)
                    .map(|p| &p["withdrawn_at"])
            ));
        }
    }
    let known: std::collections::HashSet<i64> = approvals.iter().map(|a| a.id).collect();
    for id in trail
        .approvals_recorded
        .keys()
        .filter(|id| !known.contains(id))
    {
        report.differ(format!(
            "Special 3 approval {id} is in the audit trail but not in the record: it was removed"
        ));
    }
    println!(
        "checked: {} set bets, {} tickets sold from them, {} approvals of Special 3",
        sets.len(),
        sold.len(),
        approvals.len()
    );
    Ok(())
}

fn check_settlements(
    conn: &mut DbConnection,
    trail: &Trail,
    report: &mut Report,
) -> anyhow::Result<()> {
    let settled: Vec<(i64, String)> = games::table
        .filter(games::state.eq(GameState::Settled.as_str()))
        .order(games::number)
        .select((games::number, games::rule_set))
        .load(conn)?;
    let mut rules: HashMap<String, Arc<RuleSet>> = HashMap::new();
    for (game, hash) in &settled {
        let game = *game;
        if !rules.contains_key(hash) {
            let body: String = rule_sets::table
                .find(hash)
                .select(rule_sets::body)
                .first(conn)?;
            rules.insert(hash.clone(), Arc::new(RuleSet::from_toml_str(&body)?));
        }
        let drawn = crate::games::drawn(conn, game)?;
        let stored_totals = stored_totals(conn, game)?;
        let stored_results: Vec<TicketResultRow> = ticket_results::table
            .filter(ticket_results::game.eq(game))
            .select(TicketResultRow::as_select())
            .load(conn)?;
        let stored_ways: Vec<WayResultRow> = way_results::table
            .filter(way_results::game.eq(game))
            .select(WayResultRow::as_select())
            .load(conn)?;
        let stored_bonuses: Vec<BonusResultRow> = bonus_results::table
            .filter(bonus_results::game.eq(game))
            .select(BonusResultRow::as_select())
            .load(conn)?;
        let stored_digest = results_digest(&stored_results, &stored_ways, &stored_bonuses);
        if let Some(entry) = trail.settled.get(&game) {
            let numbers: Vec<u8> = serde_json::from_value(entry["drawn"].clone())?;
            if numbers != drawn {
                report.differ(format!(
                    "game {game}: the numbers drawn are {drawn:?}, the trail says {numbers:?}"
                ));
            }
            let totals: Option<Totals> = serde_json::from_value(entry["totals"].clone()).ok();
            if totals.as_ref() != stored_totals.as_ref() {
                report.differ(format!(
                    "game {game}: the settlement's totals differ from the trail's"
                ));
            }
            if entry["results_digest"].as_str() != Some(stored_digest.as_str()) {
                report.differ(format!(
                    "game {game}: the stored prizes differ from those the trail recorded"
                ));
            }
        }
        // Settled again from the stored tickets and draw, under the game's own rule set.
        let again = compute(&rules[hash], conn, game, &drawn)?;
        if Some(again.totals()) != stored_totals {
            report.differ(format!(
                "game {game}: settled again, its totals differ from the stored settlement"
            ));
        }
        if results_digest(&again.results, &again.special_ways, &again.bonuses) != stored_digest {
            report.differ(format!(
                "game {game}: settled again from the stored tickets and draw, the prizes \
                 differ from the stored ones"
            ));
        }
    }
    println!(
        "checked: {} settled games, each settled again",
        settled.len()
    );
    Ok(())
}

fn stored_totals(conn: &mut DbConnection, game: i64) -> QueryResult<Option<Totals>> {
    type Row = (i64, i64, i64, bool, i64, i64, bool, i64);
    let row: Option<Row> = game_settlements::table
        .find(game)
        .select((
            game_settlements::ways,
            game_settlements::total_prizes_cents,
            game_settlements::major_prizes,
            game_settlements::prorated,
            game_settlements::prorate_before_cents,
            game_settlements::prorate_after_cents,
            game_settlements::floor_binds_for_all,
            game_settlements::bonus_cents,
        ))
        .first(conn)
        .optional()?;
    Ok(row.map(
        |(ways, total, majors, prorated, before, after, floor, bonus)| Totals {
            ways,
            total_prizes_cents: total,
            major_prizes: majors,
            prorated,
            prorate_before_cents: before,
            prorate_after_cents: after,
            floor_binds_for_all: floor,
            bonus_cents: bonus,
        },
    ))
}
