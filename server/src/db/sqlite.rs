//! SQLite's settings on every connection, and the server's WAL checkpoints.
//!
//! SQLite copies the WAL back into the database (a checkpoint) in whichever connection's commit
//! finds it past 1,000 pages: in the server that was nearly always the sale writer, for 9% of
//! its thread (issue 37). The server's connections leave it to a thread of its own instead,
//! which checkpoints twice a second outside the writers' turn; the admin commands beside it
//! keep SQLite's own.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Weak};
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Integer;

/// The busy timeout first: it covers another process (an admin command) writing at the same
/// time. FULL syncs the WAL at every commit, so a committed number or ticket survives a power
/// cut too (rule 10.1); the sale writer's connection alone commits without it, and its sales are
/// answered only after a thread beside it has synced the WAL (`wal_sync`). A
/// statement's own journal (a multi-row insert's, to undo it alone) is kept in memory, not in
/// a file made and deleted at every commit; and 16 MiB of pages are kept per connection, so
/// the indexes a sale writes (serials, request ids) are read from the file less often.
const SETTINGS: &str = "PRAGMA busy_timeout = 10000; PRAGMA synchronous = FULL; \
     PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16384;";

/// The sale writer's own connection: its commits write the WAL without syncing it; a thread
/// beside it syncs before any sale is answered (`wal_sync`).
pub(super) const UNSYNCED_COMMITS: &str = "PRAGMA synchronous = NORMAL;";

/// For the server's connections: no checkpoint in a commit (`checkpoint_in_background`).
const NO_CHECKPOINT_AT_COMMIT: &str = "PRAGMA wal_autocheckpoint = 0;";

/// Who copies the WAL back into the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkpoints {
    /// SQLite, in the commit that finds the WAL long (the admin commands).
    AtCommit,
    /// A thread of the server's own (`checkpoint_in_background`).
    InBackground,
}

/// How often the server checkpoints.
const EVERY: Duration = Duration::from_millis(500);

/// WAL frames (4 KiB pages) past which a checkpoint also takes the writers' turn. Outside it a
/// checkpoint runs beside the writers and may never catch up with them, and SQLite starts the
/// WAL over only after one that did: taking the turn now and then bounds the file (to about
/// 16 MiB and half a second of sales).
const TURN_PAST_FRAMES: i32 = 4096;

#[derive(QueryableByName)]
struct Checkpointed {
    /// Frames in the WAL.
    #[diesel(sql_type = Integer)]
    log: i32,
}

/// Checkpoints the database at `path` twice a second, on a connection of its own (never one the
/// pool's users wait for), while any handle on `turn` (the `Db`'s writer turn) is held; the
/// thread ends with the last `Db`.
pub(super) fn checkpoint_in_background(path: PathBuf, turn: Weak<Mutex<()>>) {
    let spawned = std::thread::Builder::new()
        .name("wal-checkpoint".into())
        .spawn(move || {
            let mut conn: Option<diesel::SqliteConnection> = None;
            loop {
                std::thread::sleep(EVERY);
                let Some(turn) = turn.upgrade() else {
                    return;
                };
                if let Err(e) = checkpoint(&path, &mut conn, &turn) {
                    conn = None;
                    tracing::warn!(error = %e, "the WAL checkpoint failed; it is tried again");
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "the WAL checkpoint thread did not start");
    }
}

fn checkpoint(
    path: &Path,
    conn: &mut Option<diesel::SqliteConnection>,
    turn: &Mutex<()>,
) -> anyhow::Result<()> {
    let c = match conn {
        Some(c) => c,
        None => {
            let mut c = diesel::SqliteConnection::establish(&path.to_string_lossy())?;
            configure(&mut c, Checkpoints::InBackground)?;
            conn.insert(c)
        }
    };
    let passive = || diesel::sql_query("PRAGMA wal_checkpoint(PASSIVE)");
    let done: Checkpointed = passive().get_result(c)?;
    if done.log > TURN_PAST_FRAMES {
        let _turn = turn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let _: Checkpointed = passive().get_result(c)?;
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Attached {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    file: String,
}

/// The main database's file as SQLite opened it (a symbolic link followed, the path made
/// whole): its WAL is beside it.
pub(super) fn database_file(conn: &mut diesel::SqliteConnection) -> anyhow::Result<PathBuf> {
    let attached: Vec<Attached> = diesel::sql_query("PRAGMA database_list").load(conn)?;
    attached
        .into_iter()
        .find(|a| a.name == "main" && !a.file.is_empty())
        .map(|a| PathBuf::from(a.file))
        .ok_or_else(|| anyhow::anyhow!("SQLite names no file for the main database"))
}

/// A new connection to the database at `path`, configured.
pub(super) fn connect(
    path: &Path,
    checkpoints: Checkpoints,
) -> Result<diesel::SqliteConnection, diesel::r2d2::Error> {
    let mut conn = diesel::SqliteConnection::establish(&path.to_string_lossy())
        .map_err(diesel::r2d2::Error::ConnectionError)?;
    configure(&mut conn, checkpoints).map_err(diesel::r2d2::Error::QueryError)?;
    Ok(conn)
}

/// Applies `SETTINGS` (and for the server, no checkpoint at commit) to a new connection.
pub(super) fn configure(
    c: &mut diesel::SqliteConnection,
    checkpoints: Checkpoints,
) -> QueryResult<()> {
    c.batch_execute(SETTINGS)?;
    if checkpoints == Checkpoints::InBackground {
        c.batch_execute(NO_CHECKPOINT_AT_COMMIT)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    /// Whether SQLite was built to keep its plans (see `.cargo/config.toml`).
    fn keeps_plans(c: &mut diesel::SqliteConnection) -> QueryResult<bool> {
        #[derive(QueryableByName)]
        struct CompileOption {
            #[diesel(sql_type = diesel::sql_types::Text)]
            compile_options: String,
        }
        let options: Vec<CompileOption> = diesel::sql_query("PRAGMA compile_options").load(c)?;
        Ok(options.iter().any(|o| o.compile_options == "ENABLE_QPSG"))
    }

    #[derive(QueryableByName)]
    struct Setting {
        #[diesel(sql_type = Integer)]
        wal_autocheckpoint: i32,
    }

    /// SQLite is built with the planner's stability guarantee: without it a `LIMIT ?` statement
    /// (every diesel `.first()`) expired at each new binding and was parsed again.
    #[test]
    fn sqlite_keeps_its_plans() {
        let dir = tempfile::tempdir().unwrap();
        let mut c =
            diesel::SqliteConnection::establish(&dir.path().join("k.sqlite").to_string_lossy())
                .unwrap();
        assert!(
            keeps_plans(&mut c).unwrap(),
            "SQLite was built without SQLITE_ENABLE_QPSG"
        );
    }

    #[derive(QueryableByName)]
    struct Synchronous {
        #[diesel(sql_type = Integer)]
        synchronous: i32,
    }

    fn synchronous(conn: &mut crate::db::DbConnection) -> i32 {
        diesel::sql_query("PRAGMA synchronous")
            .get_result::<Synchronous>(conn)
            .unwrap()
            .synchronous
    }

    /// The sale writer's connection commits without syncing the WAL (a thread syncs behind
    /// it, `wal_sync`); it is its own, so the pool's connections all go on syncing at each
    /// commit, before and after it.
    #[test]
    fn only_the_sale_writers_connection_commits_without_a_sync() {
        const FULL: i32 = 2;
        const NORMAL: i32 = 1;
        let dir = tempfile::tempdir().unwrap();
        let url = dir.path().join("k.sqlite").to_string_lossy().to_string();
        let db = Db::open_to_serve(&url, 1, "keno-server").unwrap();
        assert_eq!(synchronous(&mut db.conn().unwrap()), FULL);
        let mut writer = db.writer_conn().unwrap();
        assert!(matches!(writer, crate::db::WriterConn::Unsynced(_)));
        assert_eq!(synchronous(&mut writer), NORMAL);
        drop(writer);
        // The pool's one connection, the same as before.
        assert_eq!(synchronous(&mut db.conn().unwrap()), FULL);
    }

    /// The server's commits leave the WAL to the checkpoint thread, which copies it back into
    /// the database; an admin command's connections keep SQLite's own.
    #[test]
    fn the_server_checkpoints_in_a_thread_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let url = dir.path().join("k.sqlite").to_string_lossy().to_string();
        let admin = Db::open(&url, 1).unwrap();
        let setting: Setting = diesel::sql_query("PRAGMA wal_autocheckpoint")
            .get_result(&mut *admin.conn().unwrap())
            .unwrap();
        assert_eq!(setting.wal_autocheckpoint, 1000);
        drop(admin);

        let db = Db::open_to_serve(&url, 2, "keno-server").unwrap();
        let mut conn = db.conn().unwrap();
        let setting: Setting = diesel::sql_query("PRAGMA wal_autocheckpoint")
            .get_result(&mut *conn)
            .unwrap();
        assert_eq!(setting.wal_autocheckpoint, 0);
        let file = dir.path().join("k.sqlite");
        let before = std::fs::metadata(&file).unwrap().len();
        conn.batch_execute(
            "CREATE TABLE filler (x TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL \
             SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO filler SELECT hex(randomblob(100)) \
             FROM n;",
        )
        .unwrap();
        // Committed into the WAL only: no checkpoint at commit.
        assert_eq!(std::fs::metadata(&file).unwrap().len(), before);
        // Copied back by the thread (twice a second); waited for, not timed.
        let copied = || std::fs::metadata(&file).unwrap().len() > before + 2_000_000;
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !copied() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(copied(), "the WAL was never checkpointed");
    }
}
