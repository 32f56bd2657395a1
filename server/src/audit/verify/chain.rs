//! The audit trail read once, its hash chain checked entry by entry, and what its entries say
//! of the records gathered for the other checks.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::Context;
use diesel::prelude::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{for_each_page, Report, PAGE};
use crate::audit::log::entry_hash;
use crate::db::schema::{audit_head, audit_log};
use crate::db::DbConnection;

/// What the trail says of the records, gathered in one pass over it.
#[derive(Default)]
pub struct Trail {
    // Tickets' sales, cancellations and payments are not gathered here: `super::tickets`
    // reads them a page of tickets at a time (`super::entries`).
    pub principals: HashMap<String, Value>,
    pub rule_sets: HashMap<String, Value>,
    /// Code -> the voucher as issued.
    pub vouchers_issued: HashMap<String, Value>,
    /// Code -> each spend: (the ticket sold, cents).
    pub voucher_spends: HashMap<String, Vec<(String, i64)>>,
    pub voucher_cashed: HashMap<String, Value>,
    pub sets_created: BTreeMap<i64, Value>,
    pub sets_retired: BTreeMap<i64, Value>,
    pub approvals_recorded: BTreeMap<i64, Value>,
    pub approvals_withdrawn: BTreeMap<i64, Value>,
    /// Id -> the movement of the bonus fund as recorded.
    pub fund_moved: BTreeMap<i64, Value>,
    /// Serial -> the void of its wagers as recorded (rule 17.2).
    pub voided: HashMap<String, Value>,
    pub closures_scheduled: BTreeMap<i64, Value>,
    pub closures_withdrawn: BTreeMap<i64, Value>,
    /// Staff ID -> the person as the trail's changes leave them (`super::staff`).
    pub staff: HashMap<String, super::staff::Person>,
    /// "site/terminal" -> the digest of its credential as last set.
    pub terminal_credentials: HashMap<String, Option<String>>,
    /// Id -> a writer's shift as opened, closed and signed off.
    pub shifts_opened: BTreeMap<i64, Value>,
    pub shifts_closed: BTreeMap<i64, Value>,
    pub shifts_signed_off: BTreeMap<i64, Value>,
    /// The number of the trail's last entry.
    pub last_seq: i64,
    /// The hash of each entry a checkpoint names (`super::checkpoints`).
    pub hashes_at: BTreeMap<i64, String>,
}

/// A ticket as sold, without its status, hashed: what the trail's entry must match.
pub fn sold_digest(mut sold: Value) -> [u8; 32] {
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

/// Reads the whole trail, checking its chain as it goes, and returns what it says, with the
/// hashes of the entries numbered in `wanted` (those checkpoints sign).
pub fn read(
    conn: &mut DbConnection,
    wanted: &BTreeSet<i64>,
    report: &mut Report,
) -> anyhow::Result<Trail> {
    let (head_seq, head_hash): (i64, String) = audit_head::table
        .find(1)
        .select((audit_head::seq, audit_head::hash))
        .first(conn)
        .context("the audit trail's head")?;
    let mut trail = Trail::default();
    let mut chain = Chain {
        prev: "0".repeat(64),
        expected_seq: 1,
        broken: false,
    };
    for_each_page(
        conn,
        |conn, after| {
            audit_log::table
                .filter(audit_log::seq.gt(*after))
                .order(audit_log::seq)
                .limit(PAGE)
                .load::<LogRow>(conn)
        },
        |e: &LogRow| e.seq,
        |e| {
            chain.link(&e, report);
            if wanted.contains(&e.seq) {
                trail.hashes_at.insert(e.seq, chain.prev.clone());
            }
            match payload(&e, report) {
                Some(payload) => trail.add(e, payload, report),
                None => Ok(()),
            }
        },
    )?;
    let last = chain.expected_seq - 1;
    trail.last_seq = last;
    if !chain.broken && (head_seq != last || head_hash != chain.prev) {
        report.differ(format!(
            "the audit chain ends at entry {last} but its head says {head_seq}: entries were \
             removed from the end"
        ));
    }
    report.checked(format!("the audit chain of {last} entries"));
    Ok(trail)
}

/// The chain as far as it has been read.
struct Chain {
    prev: String,
    expected_seq: i64,
    /// Once broken, every later entry would differ too: the break is reported once.
    broken: bool,
}

impl Chain {
    fn link(&mut self, e: &LogRow, report: &mut Report) {
        if !self.broken {
            let hash = entry_hash(
                &self.prev,
                e.seq,
                e.recorded_at,
                &e.kind,
                &e.subject,
                e.principal_id.as_deref(),
                &e.payload,
            );
            if e.seq != self.expected_seq || e.prev_hash != self.prev || e.hash != hash {
                report.differ(format!(
                    "the audit chain breaks at entry {} ({} {}): an entry was changed, removed \
                     or inserted",
                    e.seq, e.kind, e.subject
                ));
                self.broken = true;
            }
        }
        self.prev = e.hash.clone();
        self.expected_seq = e.seq + 1;
    }
}

/// An entry's payload. One that cannot be read vouches for nothing: it is reported, and its
/// record is checked as one the trail does not hold.
fn payload(e: &LogRow, report: &mut Report) -> Option<Value> {
    match serde_json::from_str(&e.payload) {
        Ok(payload) => Some(payload),
        Err(error) => {
            report.differ(format!(
                "audit entry {} ({} {}): its payload cannot be read ({error})",
                e.seq, e.kind, e.subject
            ));
            None
        }
    }
}

impl Trail {
    /// What entry `e` says of its record.
    fn add(&mut self, e: LogRow, payload: Value, report: &mut Report) -> anyhow::Result<()> {
        let subject = e.subject;
        match e.kind.as_str() {
            "principal_added" => {
                self.principals.insert(subject, payload);
            }
            "rule_set_recorded" => {
                self.rule_sets.insert(subject, payload);
            }
            "voucher_issued" => {
                self.vouchers_issued.insert(subject, payload);
            }
            "voucher_spent" => {
                match (payload["serial"].as_str(), payload["amount_cents"].as_i64()) {
                    (Some(serial), Some(cents)) => self
                        .voucher_spends
                        .entry(subject)
                        .or_default()
                        .push((serial.to_string(), cents)),
                    // Not counted as a spend: the voucher's spends then differ from the trail's.
                    _ => report.differ(format!(
                        "audit entry {} (voucher_spent {subject}): it names no ticket or no \
                         amount",
                        e.seq
                    )),
                }
            }
            "voucher_cashed" => {
                self.voucher_cashed.insert(subject, payload);
            }
            "set_bet_created" => {
                self.sets_created.insert(subject.parse()?, payload);
            }
            "set_bet_retired" => {
                self.sets_retired.insert(subject.parse()?, payload);
            }
            "special3_approval_recorded" => {
                self.approvals_recorded.insert(subject.parse()?, payload);
            }
            "special3_approval_withdrawn" => {
                self.approvals_withdrawn.insert(subject.parse()?, payload);
            }
            "ticket_voided" => {
                self.voided.insert(subject, payload);
            }
            "bonus_fund_moved" => {
                self.fund_moved.insert(subject.parse()?, payload);
            }
            "keno_closure_scheduled" => {
                self.closures_scheduled.insert(subject.parse()?, payload);
            }
            "keno_closure_withdrawn" => {
                self.closures_withdrawn.insert(subject.parse()?, payload);
            }
            _ => self.add_room(&e.kind, subject, payload, report)?,
        }
        Ok(())
    }

    /// What an entry of the room's running says: people, terminals, shifts.
    fn add_room(
        &mut self,
        kind: &str,
        subject: String,
        payload: Value,
        report: &mut Report,
    ) -> anyhow::Result<()> {
        match kind {
            "staff_added" | "staff_disabled" | "staff_enabled" | "staff_secret_reset" => {
                super::staff::replay(&mut self.staff, kind, subject, &payload, report);
            }
            "terminal_registered" | "terminal_credential_rotated" => {
                // A digest missing from the entry reads as none: it then differs from the table.
                let digest = payload["credential_sha256"].as_str().map(str::to_string);
                self.terminal_credentials.insert(subject, digest);
            }
            "shift_opened" => {
                self.shifts_opened.insert(subject.parse()?, payload);
            }
            "shift_closed" => {
                self.shifts_closed.insert(subject.parse()?, payload);
            }
            "shift_signed_off" => {
                self.shifts_signed_off.insert(subject.parse()?, payload);
            }
            _ => {}
        }
        Ok(())
    }
}
