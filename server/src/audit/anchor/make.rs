//! Making checkpoints: the leader, four times an interval (`task.rs`), asks whether one is due
//! (`due`: its first, a Keno Day ended, a game settled, or the interval passed with entries
//! written since the last), signs the trail's heads in a transaction fenced by its term, and
//! appends what it made to the checkpoint file after the commit. A file left behind (a crash
//! between the two, a checkpoint made by another instance) is caught up from the database.
//! Every server also signs one as it starts and as it stops (`mark`), and does not start on a
//! database behind the file (`check_file`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
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
    /// The number of the last checkpoint this process knows to be in the file: the file is
    /// read only when the database holds a later one.
    filed: AtomicI64,
}

impl Anchor {
    pub fn new(key: AuditKey, file: PathBuf, interval: Duration) -> Anchor {
        Anchor {
            key,
            file,
            interval,
            settled: AtomicBool::new(false),
            filing: Mutex::new(()),
            filed: AtomicI64::new(0),
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
    let settled = anchor.settled.swap(false, Ordering::SeqCst);
    let (before, at) = (super::stored_last(&mut conn)?, chains::heads(&mut conn)?);
    if before.as_ref().map_or(0, |c| c.n) > anchor.filed.load(Ordering::SeqCst) {
        catch_up(anchor, &mut conn)?;
    }
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
        let last = super::stored_last(conn)?;
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

/// At start: the checkpoint file is this database's and the database is not behind it. Its
/// last checkpoint must be the database's of that number, and the trail must still hold every
/// head it signs (an empty or new file is filled from the database). A database whose last
/// checkpoint is an earlier one of the file was put back to an earlier copy: what was written
/// after that copy is lost, and the server does not serve on it (issue 33). A file of another
/// database's trail would be caught up wrongly, so the server does not start on it either. A
/// file that others could read is made 0600 (issue 31), as the database is.
pub fn check_file(
    conn: &mut DbConnection,
    path: &std::path::Path,
) -> anyhow::Result<Option<Behind>> {
    crate::private_files::tighten(path)?;
    let Some(filed) = file::last(path)? else {
        return Ok(None);
    };
    let ours: Option<Checkpoint> = audit_checkpoints::table
        .find(filed.n)
        .select(Checkpoint::as_select())
        .first(conn)
        .optional()?;
    match ours {
        Some(ours) if ours == filed => heads_kept(conn, path, &filed),
        Some(_) => Err(another_trail(path, &filed)),
        None => match super::stored_last(conn)? {
            Some(ours) if file::read(path)?.contains(&ours) => {
                Ok(Some(behind(path, &filed, &ours)))
            }
            _ => Err(another_trail(path, &filed)),
        },
    }
}

/// A database behind its checkpoint file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Behind {
    /// What was found, in a sentence.
    pub detail: String,
    /// For a database put back to an earlier copy: the file's checkpoints it does not hold,
    /// first and last. `None` for a trail cut under checkpoints it still holds.
    pub lost: Option<(i64, i64)>,
}

fn another_trail(path: &std::path::Path, filed: &Checkpoint) -> anyhow::Error {
    anyhow::anyhow!(
        "the checkpoint file {} holds another trail's checkpoints (its last, number {}, is not \
         this database's): give each database a --checkpoints file of its own",
        path.display(),
        filed.n
    )
}

/// A database put back to its checkpoint `ours`, behind the file's `filed`.
fn behind(path: &std::path::Path, filed: &Checkpoint, ours: &Checkpoint) -> Behind {
    let at = |c: &Checkpoint| crate::time::local(c.made_at).format("%d/%m/%Y %H:%M:%S");
    Behind {
        detail: format!(
            "the database is behind its checkpoint file {}: the file's last checkpoint is \
             number {}, made {}, but the database's last is number {}, made {}; what was \
             written between them is not in this database, which was put back to an earlier \
             copy (a restore from backup, or a rollback)",
            path.display(),
            filed.n,
            at(filed),
            ours.n,
            at(ours)
        ),
        lost: Some((ours.n + 1, filed.n)),
    }
}

/// Every head the file's last checkpoint signs is still in the trail with the hash signed:
/// entries removed from the end, or the database put back with its checkpoints copied over,
/// are behind the file too.
fn heads_kept(
    conn: &mut DbConnection,
    path: &std::path::Path,
    filed: &Checkpoint,
) -> anyhow::Result<Option<Behind>> {
    use crate::db::schema::audit_log;
    let heads = filed.signed_heads().ok_or_else(|| {
        anyhow::anyhow!(
            "{}: checkpoint {} names the chains' heads in a form no server writes",
            path.display(),
            filed.n
        )
    })?;
    for head in heads {
        let hash: Option<String> = audit_log::table
            .filter(audit_log::chain.eq(head.chain))
            .filter(audit_log::seq.eq(head.seq))
            .select(audit_log::hash)
            .first(conn)
            .optional()?;
        if hash.as_deref() != Some(head.hash.as_str()) {
            return Ok(Some(Behind {
                detail: format!(
                    "the audit trail is behind its checkpoint file {}: its entry {} (chain {}), \
                     signed by checkpoint {}, is {}; the trail was cut or changed",
                    path.display(),
                    head.seq,
                    head.chain,
                    filed.n,
                    if hash.is_some() { "changed" } else { "missing" }
                ),
                lost: None,
            }));
        }
    }
    Ok(None)
}

/// Signs a checkpoint for `reason` now, whatever is due (a server's start and graceful stop),
/// after the closing one of an ended Keno Day if that is still due; then files what is
/// missing. Not fenced by a term: it adds a checkpoint, numbered after the last. Two made at
/// once (instances starting together, or the leader's own) conflict on the number, one failing
/// whole: that one is signed again after the other, a few times at most.
pub fn mark(
    (anchor, store): (&Anchor, &crate::store::Store),
    reason: Reason,
    today: &str,
    instance: &str,
) -> anyhow::Result<Checkpoint> {
    let db = &store.db;
    let mut conn = db.conn()?;
    let mut tries = 0;
    // The fault harness's "checkpoint" pause holds the signed checkpoint uncommitted, so
    // instances starting together conflict for certain in a test.
    let pause = Some(crate::store::Pause(&store.faults, "checkpoint"));
    let made = loop {
        tries += 1;
        match crate::store::transact(db, &mut conn, pause, |conn| {
            mark_in(conn, anchor, reason, (today, instance))
        }) {
            Err(e) if tries < 5 && numbered_already(&e) => continue,
            done => break done?,
        }
    };
    catch_up(anchor, &mut conn)?;
    Ok(made)
}

/// Whether `e` is another checkpoint taking the number first.
fn numbered_already(e: &anyhow::Error) -> bool {
    use diesel::result::{DatabaseErrorKind, Error};
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<Error>(),
            Some(Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _))
        )
    })
}

/// [`mark`]'s checkpoints, in the caller's transaction.
fn mark_in(
    conn: &mut DbConnection,
    anchor: &Anchor,
    reason: Reason,
    (today, instance): (&str, &str),
) -> anyhow::Result<Checkpoint> {
    let mut last = super::stored_last(conn)?;
    let heads = chains::heads(conn)?;
    let ended = due(
        last.as_ref(),
        &heads,
        now_micros(),
        false,
        anchor.interval,
        today,
    );
    if let Some((Reason::KenoDayEnd, day)) = ended {
        let closing = sign(
            anchor,
            last.as_ref(),
            &heads,
            (Reason::KenoDayEnd, day),
            instance.into(),
        );
        diesel::insert_into(audit_checkpoints::table)
            .values(&closing)
            .execute(conn)?;
        last = Some(closing);
    }
    let made = sign(
        anchor,
        last.as_ref(),
        &heads,
        (reason, today.into()),
        instance.into(),
    );
    diesel::insert_into(audit_checkpoints::table)
        .values(&made)
        .execute(conn)?;
    Ok(made)
}

/// The checkpoint that accepts a restore (issue 33), in the transaction that resumes it:
/// numbered after the file's last, `lost_to`, and naming it, it signs the trail as it stands,
/// so the file's checkpoints the database lost stand as a gap that two people accepted.
pub fn bridge(
    anchor: &Anchor,
    conn: &mut DbConnection,
    lost_to: i64,
    (today, instance): (&str, &str),
) -> anyhow::Result<Checkpoint> {
    let filed = file::last(&anchor.file)?
        .filter(|c| c.n == lost_to)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "the checkpoint file {} no longer ends at checkpoint {lost_to}, as it did when \
                 the restore was found",
                anchor.file.display()
            )
        })?;
    let heads = chains::heads(conn)?;
    let made = sign(
        anchor,
        Some(&filed),
        &heads,
        (Reason::RestoreAccepted, today.to_string()),
        instance.to_string(),
    );
    diesel::insert_into(audit_checkpoints::table)
        .values(&made)
        .execute(conn)?;
    Ok(made)
}

/// Appends to the file every stored checkpoint it does not hold yet. The file's end is read
/// each time, not remembered: another instance given the same file may have appended since.
/// (Two instances catching up at the same moment can write a checkpoint twice; verify reads an
/// identical repeat as one.)
pub fn catch_up(anchor: &Anchor, conn: &mut DbConnection) -> anyhow::Result<()> {
    let _filing = anchor.filing.lock().unwrap_or_else(|e| e.into_inner());
    let after = file::last_n(&anchor.file)?;
    let missing: Vec<Checkpoint> = audit_checkpoints::table
        .filter(audit_checkpoints::n.gt(after))
        .order(audit_checkpoints::n)
        .select(Checkpoint::as_select())
        .load(conn)?;
    file::append(&anchor.file, &missing)?;
    let filed = missing.last().map_or(after, |c| c.n);
    anchor.filed.fetch_max(filed, Ordering::SeqCst);
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
