//! Making checkpoints: the leader, once a second (`task.rs`), asks whether one is due (`due`: its first,
//! a Keno Day ended, a game settled, or the interval passed with entries written since the
//! last), signs the trail's heads in a transaction fenced by its term, and appends what it made
//! to the checkpoint file after the commit. A file left behind (a crash between the two, a
//! checkpoint made by another instance) is caught up from the database first.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use diesel::prelude::*;

use super::key::AuditKey;
use super::{file, Checkpoint, Reason, GENESIS};
use crate::audit::chains::{self, Head};
use crate::db::schema::audit_checkpoints;
use crate::db::{now_micros, Db, DbConnection};
use crate::leader::Term;

/// The server's means of anchoring its trail.
pub struct Anchor {
    pub key: AuditKey,
    pub file: PathBuf,
    pub interval: Duration,
    /// A game was settled since the last checkpoint.
    pub settled: AtomicBool,
    /// Held while the file is caught up: one catch-up at a time in this process.
    filing: Mutex<()>,
}

impl Anchor {
    pub fn new(key: AuditKey, file: PathBuf, interval: Duration) -> Anchor {
        Anchor {
            key,
            file,
            interval,
            settled: AtomicBool::new(false),
            filing: Mutex::new(()),
        }
    }
}

/// The checkpoints due now, with the Keno Day each belongs to, given the last one, the trail's
/// heads now, whether a game was settled since, and the Keno Day now.
pub fn due(
    last: Option<&Checkpoint>,
    heads: &[Head],
    now: i64,
    settled: bool,
    interval: Duration,
    today: &str,
) -> Option<(Reason, String)> {
    let Some(last) = last else {
        return Some((Reason::Start, today.to_string()));
    };
    // Keno Days are stored as YYYY-MM-DD: their text sorts as their dates. A day is closed
    // once: after its closing checkpoint, the next belongs to the day it is made in.
    let closed_its_day = Reason::parse(&last.reason) == Some(Reason::KenoDayEnd);
    if last.keno_day.as_str() < today && !closed_its_day {
        return Some((Reason::KenoDayEnd, last.keno_day.clone()));
    }
    // Nothing written since: every chain's head is where the last checkpoint signed it.
    if last.signed_heads().as_deref() == Some(heads) {
        return None;
    }
    if settled {
        return Some((Reason::Settlement, today.to_string()));
    }
    let waited = now.saturating_sub(last.made_at);
    (waited >= interval.as_micros() as i64).then(|| (Reason::Interval, today.to_string()))
}

/// One look: the file caught up, then a checkpoint made if one is due on Keno Day `today`.
/// Whether one is due is read first outside any transaction, so that an idle server takes no
/// write lock each second (SQLite has one writer); it is decided again under the leader's
/// fence (`term`) before signing, by `instance`.
pub fn step(
    (anchor, db): (&Anchor, &Db),
    today: &str,
    instance: &str,
    term: Term,
) -> anyhow::Result<()> {
    let mut conn = db.conn()?;
    catch_up(anchor, &mut conn)?;
    let settled = anchor.settled.swap(false, Ordering::SeqCst);
    let (before, at) = (last(&mut conn)?, chains::heads(&mut conn)?);
    if due(
        before.as_ref(),
        &at,
        now_micros(),
        settled,
        anchor.interval,
        today,
    )
    .is_none()
    {
        return Ok(());
    }
    let made = crate::store::transact(db, &mut conn, None, |conn| {
        term.check(conn)?;
        let last = last(conn)?;
        let heads = chains::heads(conn)?;
        let Some((reason, day)) = due(
            last.as_ref(),
            &heads,
            now_micros(),
            settled,
            anchor.interval,
            today,
        ) else {
            return anyhow::Ok(None);
        };
        let made = sign(
            anchor,
            last.as_ref(),
            &heads,
            (reason, day),
            instance.to_string(),
        );
        diesel::insert_into(audit_checkpoints::table)
            .values(&made)
            .execute(conn)?;
        Ok(Some(made))
    })?;
    if let Some(made) = made {
        tracing::debug!(
            n = made.n,
            seq = made.seq,
            reason = made.reason,
            "audit checkpoint"
        );
    }
    catch_up(anchor, &mut conn)
}

/// The checkpoint after `last` of the trail's `heads`, signed: `seq` and `hash` name the
/// latest head, `heads` all of them.
fn sign(
    anchor: &Anchor,
    last: Option<&Checkpoint>,
    heads: &[Head],
    (reason, keno_day): (Reason, String),
    instance: String,
) -> Checkpoint {
    let latest = heads.iter().max_by_key(|h| h.seq);
    let mut made = Checkpoint {
        n: last.map_or(1, |l| l.n + 1),
        seq: latest.map_or(0, |h| h.seq),
        hash: latest.map_or(GENESIS.to_string(), |h| h.hash.clone()),
        made_at: now_micros(),
        keno_day,
        instance,
        reason: reason.as_str().into(),
        prev: last.map_or(GENESIS.to_string(), Checkpoint::digest),
        public_key: anchor.key.public_hex(),
        signature: String::new(),
        heads: Some(chains::encode(heads)),
    };
    made.signature = anchor.key.sign(&made.message());
    made
}

fn last(conn: &mut DbConnection) -> QueryResult<Option<Checkpoint>> {
    audit_checkpoints::table
        .order(audit_checkpoints::n.desc())
        .select(Checkpoint::as_select())
        .first(conn)
        .optional()
}

/// At start: the checkpoint file is this database's. Its last checkpoint must be the database's
/// of that number (an empty or new file is filled from the database); a file of another
/// database's trail would be caught up wrongly, so the server does not start on it. A file
/// that others could read is made 0600 (issue 31), as the database is.
pub fn check_file(conn: &mut DbConnection, path: &std::path::Path) -> anyhow::Result<()> {
    crate::private_files::tighten(path)?;
    let Some(last) = file::read(path)?.pop() else {
        return Ok(());
    };
    let ours: Option<Checkpoint> = audit_checkpoints::table
        .find(last.n)
        .select(Checkpoint::as_select())
        .first(conn)
        .optional()?;
    anyhow::ensure!(
        ours.as_ref() == Some(&last),
        "the checkpoint file {} holds another trail's checkpoints (its last, number {}, is not \
         this database's): give each database a --checkpoints file of its own",
        path.display(),
        last.n
    );
    Ok(())
}

/// Appends to the file every stored checkpoint it does not hold yet. The file's end is read
/// each time, not remembered: another instance given the same file may have appended since.
/// (Two instances catching up at the same moment can write a checkpoint twice; verify reads an
/// identical repeat as one.)
fn catch_up(anchor: &Anchor, conn: &mut DbConnection) -> anyhow::Result<()> {
    let _filing = anchor.filing.lock().unwrap_or_else(|e| e.into_inner());
    let after = file::last_n(&anchor.file)?;
    let missing: Vec<Checkpoint> = audit_checkpoints::table
        .filter(audit_checkpoints::n.gt(after))
        .order(audit_checkpoints::n)
        .select(Checkpoint::as_select())
        .load(conn)?;
    file::append(&anchor.file, &missing)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(n: i64, seq: i64, made_at: i64, day: &str) -> Checkpoint {
        Checkpoint {
            n,
            seq,
            hash: String::new(),
            made_at,
            keno_day: day.into(),
            instance: "a".into(),
            reason: "interval".into(),
            prev: GENESIS.into(),
            public_key: String::new(),
            signature: String::new(),
            heads: Some(chains::encode(&on_chain_0(seq))),
        }
    }

    fn on_chain_0(seq: i64) -> Vec<Head> {
        if seq == 0 {
            return Vec::new();
        }
        vec![Head {
            chain: 0,
            seq,
            hash: format!("h{seq}"),
        }]
    }

    #[test]
    fn a_checkpoint_is_due_first_at_a_day_end_after_a_settlement_or_a_written_minute() {
        let minute = Duration::from_secs(60);
        let day = "2026-11-26";
        let due = |last: Option<&Checkpoint>, head, now, settled, today| {
            super::due(last, &on_chain_0(head), now, settled, minute, today)
        };
        assert_eq!(
            due(None, 0, 0, false, day),
            Some((Reason::Start, day.into()))
        );
        let last = at(3, 10, 1_000_000, day);
        // Nothing written since: nothing due, however long it has been.
        assert_eq!(due(Some(&last), 10, 500_000_000, true, day), None);
        // Written, but within the minute: due only for a settlement.
        assert_eq!(due(Some(&last), 11, 30_000_000, false, day), None);
        assert_eq!(
            due(Some(&last), 11, 30_000_000, true, day),
            Some((Reason::Settlement, day.into()))
        );
        assert_eq!(
            due(Some(&last), 11, 61_000_000, false, day),
            Some((Reason::Interval, day.into()))
        );
        // Written on another chain only, numbered below chain 0's head: written all the same.
        let mut two = on_chain_0(10);
        two.push(Head {
            chain: 4,
            seq: 9,
            hash: "h9".into(),
        });
        assert_eq!(
            super::due(Some(&last), &two, 61_000_000, false, minute, day),
            Some((Reason::Interval, day.into()))
        );
        // A checkpoint of the single chain (issue 20) signs chain 0's head.
        let mut single = at(3, 10, 1_000_000, day);
        single.heads = None;
        single.hash = "h10".into();
        assert_eq!(due(Some(&single), 10, 500_000_000, false, day), None);
        // The Keno Day ended: its closing checkpoint names it, written since or not.
        assert_eq!(
            due(Some(&last), 10, 2_000_000, false, "2026-11-27"),
            Some((Reason::KenoDayEnd, day.into()))
        );
        let mut closed = at(4, 10, 2_000_000, day);
        closed.reason = Reason::KenoDayEnd.as_str().into();
        assert_eq!(due(Some(&closed), 10, 3_000_000, false, "2026-11-28"), None);
        assert_eq!(
            due(Some(&closed), 12, 3_000_000, true, "2026-11-28"),
            Some((Reason::Settlement, "2026-11-28".into()))
        );
    }
}
