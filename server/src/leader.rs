//! Leadership: which of the server instances sharing one database opens, closes, draws and
//! settles the games. Every instance sells, pays and serves events; one leads.
//!
//! The `leadership` row holds an epoch raised at each change of leader, the holder and a lease.
//! The leader renews the lease; every write it makes as leader first checks, in the same
//! transaction, that the epoch is still its own (`Term::check`). That check takes the row's
//! lock to commit, so a takeover (which raises the epoch) is wholly before or after each of the
//! leader's writes: an old leader that was paused and wakes up cannot write a number once
//! another has taken over (fencing).
//!
//! On PostgreSQL the leader also holds a session advisory lock on a connection of its own. When
//! its process dies the server drops the lock at once and a standby that polls for it takes
//! over in well under a second. A leader that is alive but stuck (paused, partitioned) keeps
//! the lock but stops renewing: once its lease has run out, a standby ends the old leader's
//! database sessions (rolling back whatever it had begun) and takes over. On SQLite, one
//! process serves the file: it takes the lead at start.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use tokio::sync::watch;

use crate::db::schema::leadership;
use crate::db::{Backend, Db, DbConnection};

/// PostgreSQL's clock in microseconds since the epoch: the lease is kept on the database's clock,
/// since the instances' clocks may differ.
const PG_NOW: &str = "(extract(epoch from clock_timestamp()) * 1000000)::bigint";

/// The advisory lock key of the leader ("KENO").
const LOCK_KEY: i64 = 0x4b45_4e4f;

/// A term of leadership: the epoch this process leads under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term(pub i64);

impl Term {
    /// In the caller's transaction: this process still leads. Holds the leadership row to
    /// commit, so no takeover can come between this check and the commit.
    pub fn check(self, conn: &mut DbConnection) -> QueryResult<()> {
        let held = diesel::update(leadership::table.find(1))
            .filter(leadership::epoch.eq(self.0))
            .set(leadership::epoch.eq(leadership::epoch))
            .execute(conn)?;
        if held == 1 {
            Ok(())
        } else {
            Err(fenced())
        }
    }
}

/// The error of a write by a leader that has been replaced.
pub fn fenced() -> diesel::result::Error {
    diesel::result::Error::QueryBuilderError(
        "this server instance no longer leads (another took over): the write is refused".into(),
    )
}

/// This process's view of the leadership.
pub struct Leadership {
    /// Names this process in the leadership row and in its database sessions.
    pub instance: String,
    pub lease: Duration,
    epoch: AtomicI64,
    changed: watch::Sender<i64>,
}

impl Leadership {
    pub fn new(instance: String, lease: Duration) -> Leadership {
        Leadership {
            instance,
            lease,
            epoch: AtomicI64::new(0),
            changed: watch::channel(0).0,
        }
    }

    /// The term this process leads under, if it leads.
    pub fn term(&self) -> Option<Term> {
        match self.epoch.load(Ordering::SeqCst) {
            0 => None,
            e => Some(Term(e)),
        }
    }

    /// Waits until this process leads (or `limit` has passed); returns its term.
    pub async fn wait_for_term(&self, limit: Duration) -> Option<Term> {
        let mut rx = self.changed.subscribe();
        if let Some(t) = self.term() {
            return Some(t);
        }
        let _ = tokio::time::timeout(limit, rx.wait_for(|e| *e != 0)).await;
        self.term()
    }

    fn set(&self, epoch: i64) {
        let before = self.epoch.swap(epoch, Ordering::SeqCst);
        if before != epoch {
            self.changed.send_replace(epoch);
        }
    }
}

/// A new instance name: the process id and random bits, unique across restarts and machines.
pub fn instance_name() -> String {
    use rand_core::Rng;
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    format!("keno-{}-{:08x}", std::process::id(), rng.next_u32())
}

/// Runs the election for this process forever, on a thread of its own: it blocks on the
/// database.
pub fn run(db: Db, leadership: std::sync::Arc<Leadership>) {
    let mut elector = Elector {
        db,
        leadership,
        lock_conn: None,
        led_before: false,
    };
    loop {
        let pause = match elector.step() {
            Ok(pause) => pause,
            Err(e) => {
                // Whatever failed, this process can no longer be sure it leads.
                if elector.leadership.term().is_some() {
                    tracing::warn!(error = %format!("{e:#}"), "leadership lost: stepping down");
                    elector.leadership.set(0);
                } else {
                    tracing::warn!(error = %format!("{e:#}"), "leader election");
                }
                elector.lock_conn = None;
                Duration::from_secs(1)
            }
        };
        std::thread::sleep(pause);
    }
}

struct Elector {
    db: Db,
    leadership: std::sync::Arc<Leadership>,
    /// PostgreSQL: the session holding (or trying for) the advisory lock.
    lock_conn: Option<DbConnection>,
    led_before: bool,
}

#[derive(QueryableByName)]
struct Flag {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    ok: bool,
}

#[derive(QueryableByName)]
struct Micros {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

impl Elector {
    /// One round of the election; returns how long to wait before the next.
    fn step(&mut self) -> anyhow::Result<Duration> {
        match (self.db.backend().clone(), self.leadership.term()) {
            (Backend::Postgres(url), Some(term)) => self.renew_on_pg(&url, term),
            (Backend::Postgres(url), None) => self.seek_on_pg(&url),
            (Backend::Sqlite(_), Some(term)) => self.renew_on_sqlite(term),
            (Backend::Sqlite(_), None) => self.seek_on_sqlite(),
        }
    }

    /// A leader renews its lease this often, so that a renewal or two can fail before it runs
    /// out.
    fn renew_every(&self) -> Duration {
        self.leadership.lease / 4
    }

    /// The session that holds (or tries for) the advisory lock, connected if need be.
    fn lock_conn(&mut self, url: &str) -> anyhow::Result<&mut DbConnection> {
        if self.lock_conn.is_none() {
            let conn = crate::db::connect_pg(url, &self.leadership.instance)?;
            self.lock_conn = Some(DbConnection::Pg(conn));
        }
        Ok(self.lock_conn.as_mut().expect("connected above"))
    }

    fn lead(&self, epoch: i64) {
        self.leadership.set(epoch);
        tracing::info!(epoch, instance = %self.leadership.instance, "leading");
    }

    fn step_down(&self) {
        tracing::warn!("another instance took over: stepping down");
        self.leadership.set(0);
    }

    fn renew_on_pg(&mut self, url: &str, term: Term) -> anyhow::Result<Duration> {
        let lease = self.leadership.lease;
        if !renew_pg(self.lock_conn(url)?, term, lease)? {
            self.step_down();
            self.lock_conn = None; // drops the lock with the session
        }
        Ok(self.renew_every())
    }

    /// Takes the lead if the advisory lock is free; otherwise ends the sessions of a leader
    /// whose lease has run out, so that the lock is free at a later round.
    fn seek_on_pg(&mut self, url: &str) -> anyhow::Result<Duration> {
        let instance = self.leadership.instance.clone();
        let lease = micros(self.leadership.lease);
        let conn = self.lock_conn(url)?;
        let got = diesel::sql_query("SELECT pg_try_advisory_lock($1) AS ok")
            .bind::<BigInt, _>(LOCK_KEY)
            .get_result::<Flag>(conn)?
            .ok;
        if got {
            let epoch = conn.transaction(|conn| {
                let now = pg_now(conn)?;
                take_over(conn, &instance, now, lease)
            })?;
            self.led_before = true;
            self.lead(epoch);
            return Ok(self.renew_every());
        }
        end_stuck_leader(conn, &instance)?;
        Ok(Duration::from_millis(250))
    }

    fn renew_on_sqlite(&mut self, term: Term) -> anyhow::Result<Duration> {
        let mut conn = self.db.conn()?;
        let _turn = self.db.writer_turn();
        let renewed = diesel::update(leadership::table.find(1))
            .filter(leadership::epoch.eq(term.0))
            .set(
                leadership::lease_until.eq(crate::db::now_micros() + micros(self.leadership.lease)),
            )
            .execute(&mut *conn)?;
        if renewed != 1 {
            self.step_down();
        }
        Ok(self.renew_every())
    }

    fn seek_on_sqlite(&mut self) -> anyhow::Result<Duration> {
        let mut conn = self.db.conn()?;
        let _turn = self.db.writer_turn();
        let instance = self.leadership.instance.clone();
        let lease = micros(self.leadership.lease);
        let led_before = self.led_before;
        let epoch = conn.transaction(|conn| {
            let lease_until: i64 = leadership::table
                .find(1)
                .select(leadership::lease_until)
                .first(conn)?;
            let now = crate::db::now_micros();
            // One process serves a SQLite file: at start it takes the lead; another
            // process on the same file waits for the lease to run out.
            if !led_before || lease_until < now {
                take_over(conn, &instance, now, lease).map(Some)
            } else {
                QueryResult::Ok(None)
            }
        })?;
        self.led_before = true;
        match epoch {
            Some(epoch) => {
                self.lead(epoch);
                Ok(self.renew_every())
            }
            None => Ok(Duration::from_millis(500)),
        }
    }
}

/// Someone holds the advisory lock: alive, or stuck with its lease run out. A stuck one's
/// database sessions are ended, which drops its lock.
fn end_stuck_leader(conn: &mut DbConnection, instance: &str) -> anyhow::Result<()> {
    let stale: Option<String> = diesel::sql_query(format!(
        "SELECT holder AS s FROM leadership WHERE id = 1 AND lease_until < {PG_NOW}"
    ))
    .get_result::<Holder>(conn)
    .optional()?
    .map(|h| h.s);
    match stale {
        Some(holder) if holder == instance => {
            // Its sessions are named as ours: ending them would end ours too.
            tracing::error!(
                %holder,
                "a stuck leader has this instance's name: give each its own --instance"
            );
        }
        Some(holder) if !holder.is_empty() => {
            let ended = diesel::sql_query(
                "SELECT count(pg_terminate_backend(pid)) AS n \
                 FROM pg_stat_activity WHERE application_name = $1",
            )
            .bind::<Text, _>(&holder)
            .get_result::<Micros>(conn)?
            .n;
            tracing::warn!(
                %holder,
                sessions = ended,
                "the leader's lease ran out: its database sessions were ended"
            );
        }
        _ => {}
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Holder {
    #[diesel(sql_type = Text)]
    s: String,
}

fn micros(d: Duration) -> i64 {
    d.as_micros() as i64
}

/// Renews the lease; false when the epoch has moved on.
fn renew_pg(conn: &mut DbConnection, term: Term, lease: Duration) -> QueryResult<bool> {
    let n = diesel::sql_query(format!(
        "UPDATE leadership SET lease_until = {PG_NOW} + $1 WHERE id = 1 AND epoch = $2"
    ))
    .bind::<BigInt, _>(micros(lease))
    .bind::<BigInt, _>(term.0)
    .execute(conn)?;
    Ok(n == 1)
}

fn pg_now(conn: &mut DbConnection) -> QueryResult<i64> {
    Ok(diesel::sql_query(format!("SELECT {PG_NOW} AS n"))
        .get_result::<Micros>(conn)?
        .n)
}

/// Raises the epoch and records the new leader (and the change in the audit trail).
fn take_over(conn: &mut DbConnection, instance: &str, now: i64, lease: i64) -> QueryResult<i64> {
    let (epoch, previous): (i64, String) = leadership::table
        .find(1)
        .select((leadership::epoch, leadership::holder))
        .first(conn)?;
    let epoch = epoch + 1;
    diesel::update(leadership::table.find(1))
        .set((
            leadership::epoch.eq(epoch),
            leadership::holder.eq(instance),
            leadership::lease_until.eq(now + lease),
            leadership::acquired_at.eq(now),
        ))
        .execute(conn)?;
    crate::audit::log::append(
        conn,
        vec![crate::audit::log::Entry::new(
            crate::audit::kind::EntryKind::LeaderElected,
            epoch,
            serde_json::json!({ "instance": instance, "previous": previous, "at": now }),
        )],
    )?;
    Ok(epoch)
}
