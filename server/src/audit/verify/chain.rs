//! The audit trail read once, each of its hash chains checked entry by entry, and what its entries say
//! of the records gathered for the other checks.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::Context;
use diesel::prelude::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::since::{self, Since};
use super::{for_each_page, Report, PAGE};
use crate::audit::chains::{self, Head};
use crate::audit::kind::EntryKind;
use crate::audit::log::StoredEntry;
use crate::db::schema::audit_log;
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
    /// "site/terminal" -> the venue's name its registration gave.
    pub terminal_venues: HashMap<String, Option<String>>,
    /// Id -> a writer's shift as opened, closed and signed off.
    pub shifts_opened: BTreeMap<i64, Value>,
    pub shifts_closed: BTreeMap<i64, Value>,
    pub shifts_signed_off: BTreeMap<i64, Value>,
    /// Id -> a suspension as its last entry leaves it (issue 33).
    pub suspensions: BTreeMap<i64, Value>,
    /// The number of the trail's last entry.
    pub last_seq: i64,
    /// Each chain's last entry.
    pub chain_ends: BTreeMap<i32, i64>,
    /// The chain and hash of each entry a checkpoint names (`super::checkpoints`).
    pub hashes_at: BTreeMap<i64, (i32, String)>,
    /// From a checkpoint: what the entries after it name (`super::since`).
    pub since: Option<Since>,
}

/// A ticket as sold, without its status, hashed: what the trail's entry must match.
pub fn sold_digest(mut sold: Value) -> [u8; 32] {
    if let Some(map) = sold.as_object_mut() {
        map.remove("status");
    }
    Sha256::digest(sold.to_string().as_bytes()).into()
}

/// Reads the trail, checking its chains as it goes, and returns what it says, with the hashes
/// of the entries numbered in `wanted` (those checkpoints sign). From a checkpoint (`since`),
/// only the entries after it are walked, each chain resuming at the head it signs; what they
/// name is then gathered with its older entries (`gather`).
pub fn read(
    conn: &mut DbConnection,
    wanted: &BTreeSet<i64>,
    mut since: Option<Since>,
    report: &mut Report,
) -> anyhow::Result<Trail> {
    let stored = chains::heads(conn).context("the audit trail's chains")?;
    let mut trail = Trail::default();
    let mut read: BTreeMap<i32, Chain> = BTreeMap::new();
    if let Some(s) = &since {
        for h in &s.heads {
            read.insert(h.chain, Chain::at(h));
        }
        trail.hashes_at = s.hashes_at(conn, wanted)?;
        trail.last_seq = s.seq();
    }
    let mut count = 0u64;
    for_each_page(
        conn,
        trail.last_seq,
        |conn, after| {
            audit_log::table
                .filter(audit_log::seq.gt(*after))
                .order(audit_log::seq)
                .limit(PAGE)
                .select(StoredEntry::as_select())
                .load::<StoredEntry>(conn)
        },
        |e: &StoredEntry| e.seq,
        |e| {
            count += 1;
            read.entry(e.chain).or_default().link(&e, report);
            if wanted.contains(&e.seq) {
                trail.hashes_at.insert(e.seq, (e.chain, e.hash.clone()));
            }
            trail.last_seq = e.seq;
            let Some(payload) = payload(&e, report) else {
                return Ok(());
            };
            match since.as_mut() {
                None => trail.add(e, payload, report),
                Some(s) => {
                    match EntryKind::parse(&e.kind) {
                        Some(kind) => s.note(kind, &e.subject),
                        None => unknown_kind(&e, report),
                    }
                    Ok(())
                }
            }
        },
    )?;
    heads_match(&stored, &read, report);
    trail.chain_ends = read.iter().map(|(&c, r)| (c, r.last)).collect();
    let after = since.as_ref().map_or(String::new(), |s| {
        format!(" after checkpoint {}", s.checkpoint.n)
    });
    report.checked(format!(
        "the audit trail's {count} entries{after} in {} chain(s)",
        read.len().max(1)
    ));
    if let Some(s) = &since {
        gather(conn, &mut trail, s, report)?;
        report.checked(s.taken_as_proved());
    }
    trail.since = since;
    Ok(trail)
}

/// What the trail says of the records the entries after a checkpoint name, from all their
/// entries, old and new; and of the room's administration, from the whole trail.
fn gather(
    conn: &mut DbConnection,
    trail: &mut Trail,
    since: &Since,
    report: &mut Report,
) -> anyhow::Result<()> {
    let names = |kinds: &[EntryKind]| kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>();
    let everything: Vec<StoredEntry> = audit_log::table
        .filter(audit_log::kind.eq_any(names(&since::ADMINISTRATION)))
        .order(audit_log::seq)
        .select(StoredEntry::as_select())
        .load(conn)?;
    let mut entries = everything;
    for (kinds, subjects) in [
        (&since::VOUCHER_KINDS[..], &since.vouchers),
        (&since::SHIFT_KINDS[..], &since.shifts),
    ] {
        let subjects: Vec<&String> = subjects.iter().collect();
        for chunk in subjects.chunks(PAGE as usize) {
            entries.extend(
                audit_log::table
                    .filter(audit_log::kind.eq_any(names(kinds)))
                    .filter(audit_log::subject.eq_any(chunk))
                    .order(audit_log::seq)
                    .select(StoredEntry::as_select())
                    .load::<StoredEntry>(conn)?,
            );
        }
    }
    // Each record's entries in the trail's order, whichever read found them.
    entries.sort_by_key(|e| e.seq);
    for e in entries {
        // The walk reported the unreadable ones after the checkpoint; before it, the full
        // verify did.
        if let Ok(payload) = serde_json::from_str(&e.payload) {
            trail.add(e, payload, report)?;
        }
    }
    Ok(())
}

/// Each chain's stored head is its last entry read: a tail cut (or a chain's entries all
/// removed) leaves a head past them, unless the head was moved back too, which the signed
/// checkpoints show (`super::checkpoints`).
fn heads_match(stored: &[chains::Head], read: &BTreeMap<i32, Chain>, report: &mut Report) {
    for head in stored {
        let (last, hash) = read
            .get(&head.chain)
            .map_or((0, chains::GENESIS), |c| (c.last, c.prev.as_str()));
        if !read.get(&head.chain).is_some_and(|c| c.broken)
            && (head.seq != last || head.hash != hash)
        {
            report.differ(format!(
                "audit chain {} ends at entry {last} but its head says {}: entries were removed \
                 from the end",
                head.chain, head.seq
            ));
        }
    }
    for (chain, c) in read {
        if !stored.iter().any(|h| h.chain == *chain) {
            report.differ(format!(
                "audit chain {chain} has entries (to entry {}) but no head: its head was removed",
                c.last
            ));
        }
    }
}

/// A chain as far as it has been read.
struct Chain {
    prev: String,
    last: i64,
    /// Once broken, every later entry would differ too: the break is reported once.
    broken: bool,
}

impl Default for Chain {
    fn default() -> Chain {
        Chain {
            prev: chains::GENESIS.to_string(),
            last: 0,
            broken: false,
        }
    }
}

impl Chain {
    /// A chain resumed at a checkpoint's head.
    fn at(head: &Head) -> Chain {
        Chain {
            prev: head.hash.clone(),
            last: head.seq,
            broken: false,
        }
    }

    fn link(&mut self, e: &StoredEntry, report: &mut Report) {
        if !self.broken && !e.follows(&self.prev) {
            report.differ(format!(
                "audit chain {} breaks at entry {} ({} {}): an entry was changed, removed or \
                 inserted",
                e.chain, e.seq, e.kind, e.subject
            ));
            self.broken = true;
        }
        self.prev = e.hash.clone();
        self.last = e.seq;
    }
}

/// An entry's payload. One that cannot be read vouches for nothing: it is reported, and its
/// record is checked as one the trail does not hold.
fn payload(e: &StoredEntry, report: &mut Report) -> Option<Value> {
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

fn unknown_kind(e: &StoredEntry, report: &mut Report) {
    report.differ(format!(
        "audit entry {} ({} {}): a kind no server writes",
        e.seq, e.kind, e.subject
    ));
}

impl Trail {
    /// The games a verify checks are those after this number: every one, or from a checkpoint,
    /// from the lowest its later entries name (none if they name none).
    pub fn games_after(&self) -> i64 {
        self.since
            .as_ref()
            .map_or(0, |s| s.first_game.map_or(i64::MAX, |g| g - 1))
    }

    /// What entry `e` says of its record.
    fn add(&mut self, e: StoredEntry, payload: Value, report: &mut Report) -> anyhow::Result<()> {
        let Some(kind) = EntryKind::parse(&e.kind) else {
            unknown_kind(&e, report);
            return Ok(());
        };
        let subject = e.subject;
        match kind {
            EntryKind::PrincipalAdded => {
                self.principals.insert(subject, payload);
            }
            EntryKind::RuleSetRecorded => {
                self.rule_sets.insert(subject, payload);
            }
            EntryKind::VoucherIssued => {
                self.vouchers_issued.insert(subject, payload);
            }
            EntryKind::VoucherSpent => {
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
            EntryKind::VoucherCashed => {
                self.voucher_cashed.insert(subject, payload);
            }
            EntryKind::SetBetCreated => {
                self.sets_created.insert(subject.parse()?, payload);
            }
            EntryKind::SetBetRetired => {
                self.sets_retired.insert(subject.parse()?, payload);
            }
            EntryKind::Special3ApprovalRecorded => {
                self.approvals_recorded.insert(subject.parse()?, payload);
            }
            EntryKind::Special3ApprovalWithdrawn => {
                self.approvals_withdrawn.insert(subject.parse()?, payload);
            }
            EntryKind::TicketVoided => {
                self.voided.insert(subject, payload);
            }
            EntryKind::BonusFundMoved => {
                self.fund_moved.insert(subject.parse()?, payload);
            }
            EntryKind::KenoClosureScheduled => {
                self.closures_scheduled.insert(subject.parse()?, payload);
            }
            EntryKind::KenoClosureWithdrawn => {
                self.closures_withdrawn.insert(subject.parse()?, payload);
            }
            _ => self.add_room(kind, subject, payload, report)?,
        }
        Ok(())
    }

    /// What an entry of the room's running says: people, terminals, shifts.
    fn add_room(
        &mut self,
        kind: EntryKind,
        subject: String,
        payload: Value,
        report: &mut Report,
    ) -> anyhow::Result<()> {
        match kind {
            EntryKind::StaffAdded
            | EntryKind::StaffDisabled
            | EntryKind::StaffEnabled
            | EntryKind::StaffSecretReset => {
                super::staff::replay(&mut self.staff, kind, subject, &payload, report);
            }
            EntryKind::TerminalRegistered | EntryKind::TerminalCredentialRotated => {
                // A digest missing from the entry reads as none: it then differs from the table.
                let digest = payload["credential_sha256"].as_str().map(str::to_string);
                if kind == EntryKind::TerminalRegistered {
                    let venue = payload["venue"].as_str().map(str::to_string);
                    self.terminal_venues.insert(subject.clone(), venue);
                }
                self.terminal_credentials.insert(subject, digest);
            }
            EntryKind::ShiftOpened => {
                self.shifts_opened.insert(subject.parse()?, payload);
            }
            EntryKind::ShiftClosed => {
                self.shifts_closed.insert(subject.parse()?, payload);
            }
            EntryKind::ShiftSignedOff => {
                self.shifts_signed_off.insert(subject.parse()?, payload);
            }
            EntryKind::Suspended | EntryKind::ResumeKeyTurned => {
                self.suspensions.insert(subject.parse()?, payload);
            }
            _ => {}
        }
        Ok(())
    }
}
