//! The one way a request's work reaches the database: off the async runtime (actix's blocking
//! pool), on a pooled connection, and for writes in the SQLite writer's turn, in one
//! transaction, with the fault harness's pause (`KENO_FAULT_DELAYS`) just before the commit.
//!
//! Holding rows against a concurrent change is in [`hold`]: `FOR UPDATE` / `FOR SHARE` on
//! PostgreSQL, and nothing more on SQLite, where the writer's turn already serialises writers.
//!
//! Infrastructure: the work is handed a connection, nothing of the app; work that needs the
//! app's state goes through `state::{write, read, snapshot}`, which capture it.

use actix_web::web;
use diesel::connection::Connection;
use diesel::RunQueryDsl;

use crate::db::{Db, DbConnection};
use crate::error::DomainResult;
use crate::faults::FaultDelays;

pub mod hold;

/// The database and the fault harness's pauses: what running work on the database needs.
#[derive(Clone)]
pub struct Store {
    pub db: Db,
    pub faults: FaultDelays,
}

/// Runs `work` in one write transaction; `stage` names the fault harness's pause before the
/// commit (`payment`, `sale`, ...).
pub async fn write<T, F>(store: &Store, stage: Option<&'static str>, work: F) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    let store = store.clone();
    web::block(move || -> DomainResult<T> {
        let mut conn = store.db.conn()?;
        let pause = stage.map(|stage| Pause(&store.faults, stage));
        transact(&store.db, &mut conn, pause, work)
    })
    .await?
}

/// The fault harness's pause (`KENO_FAULT_DELAYS`) named `.1`, just before a commit.
#[derive(Clone, Copy)]
pub struct Pause<'a>(pub &'a FaultDelays, pub &'static str);

/// On a connection already in hand (the clock's and drawer's tasks, the sale writer, a close):
/// the SQLite writer's turn, one transaction, and `pause` just before the commit. A failure of
/// the COMMIT itself (the connection lost as it went) is marked [`CommitUnknown`]: the
/// database may have committed it.
pub fn transact<T, E, F>(
    db: &Db,
    conn: &mut DbConnection,
    pause: Option<Pause<'_>>,
    work: F,
) -> Result<T, E>
where
    F: FnOnce(&mut DbConnection) -> Result<T, E>,
    E: From<diesel::result::Error> + AtCommit,
{
    let _turn = db.writer_turn();
    if crate::db::wal_sync::failed() {
        return Err(crate::db::wal_sync::refused_while_stopping().into());
    }
    let mut committing = false;
    conn.write_transaction(|conn| {
        let done = work(conn)?;
        if let Some(Pause(faults, stage)) = pause {
            faults.pause(stage);
        }
        committing = true;
        Ok(done)
    })
    .map_err(|e: E| if committing { e.marked_at_commit() } else { e })
}

/// A transaction whose COMMIT failed: its work was all sent, so it may have been done or not.
/// Told apart so the answer does not say "nothing was changed" when that is not known.
#[derive(Debug, thiserror::Error)]
#[error("the connection failed during COMMIT: whether the transaction took is unknown")]
pub struct CommitUnknown;

/// An error that can say it happened at COMMIT.
pub trait AtCommit {
    fn marked_at_commit(self) -> Self;
}

impl AtCommit for crate::error::Failure {
    fn marked_at_commit(self) -> Self {
        match self {
            crate::error::Failure::Internal(e) => {
                crate::error::Failure::Internal(e.context(CommitUnknown))
            }
            refused => refused,
        }
    }
}

impl AtCommit for anyhow::Error {
    fn marked_at_commit(self) -> Self {
        self.context(CommitUnknown)
    }
}

/// A bare database error cannot carry the mark; its callers (the clock's and drawer's own
/// transactions) answer no client.
impl AtCommit for diesel::result::Error {
    fn marked_at_commit(self) -> Self {
        self
    }
}

/// Runs `work` with a connection of the pool and no transaction or writer's turn of its own:
/// for reads, and for procedures that make their own transactions (closing a game).
pub async fn read<T, F>(store: &Store, work: F) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    let db = store.db.clone();
    web::block(move || -> DomainResult<T> { work(&mut *db.conn()?) }).await?
}

/// [`read`], for an answer that may tell of a sale the sale writer committed and has not yet
/// synced to the disk (a sale sent again while the first is answered): when `tells` says the
/// answer tells of any, the WAL is synced after the read and before the answer, so nothing is
/// answered as sold that a power cut could take back (`db::wal_sync`). A read that finds
/// nothing (a refusal) costs no sync.
pub async fn read_synced<T, F>(store: &Store, work: F, tells: fn(&T) -> bool) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    let db = store.db.clone();
    web::block(move || -> DomainResult<T> {
        let read = work(&mut *db.conn()?)?;
        if tells(&read) {
            db.sync_committed_or_stop();
        }
        Ok(read)
    })
    .await?
}

/// Runs `work` in one read-only transaction that sees one snapshot of the database: SQLite's
/// read transaction is one; PostgreSQL's default (read committed) would take a new snapshot per
/// statement, so the transaction is made repeatable read.
pub async fn snapshot<T, F>(store: &Store, work: F) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    read(store, move |conn| {
        conn.transaction(|conn| {
            if let DbConnection::Pg(pg) = conn {
                diesel::sql_query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    .execute(pg)?;
            }
            work(conn)
        })
    })
    .await
}
