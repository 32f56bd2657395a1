//! Write transactions that never fail for want of a lock they could have waited for.
//!
//! SQLite begins a plain (`DEFERRED`) transaction as a reader. When its first write comes after
//! a read, and another process (an admin command beside the server, or the server beside it)
//! has committed since that read, SQLite cannot upgrade the stale snapshot and answers "database
//! is locked" at once: the busy timeout does not apply. `BEGIN IMMEDIATE` takes the write lock
//! first, waiting out the busy timeout for it, so the transaction's reads are of the state it
//! writes on. (CI saw `staff add` fail this way while a server signed its checkpoints.)
//! PostgreSQL's transactions are unchanged.

use diesel::connection::{AnsiTransactionManager, Connection, TransactionManager};

use super::DbConnection;

impl DbConnection {
    /// `work` in one transaction that writes; a savepoint when already in one.
    pub fn write_transaction<T, E, F>(&mut self, work: F) -> Result<T, E>
    where
        F: FnOnce(&mut DbConnection) -> Result<T, E>,
        E: From<diesel::result::Error>,
    {
        let DbConnection::Sqlite(sqlite) = self else {
            return self.transaction(work);
        };
        let depth =
            AnsiTransactionManager::transaction_manager_status_mut(sqlite).transaction_depth()?;
        if depth.is_some() {
            return self.transaction(work);
        }
        AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN IMMEDIATE")?;
        // Committed or rolled back through the enum's manager, which hands the connection's
        // own (the one that just began) the same state.
        match work(self) {
            Ok(done) => {
                <DbConnection as Connection>::TransactionManager::commit_transaction(self)?;
                Ok(done)
            }
            Err(failed) => {
                match <DbConnection as Connection>::TransactionManager::rollback_transaction(self) {
                    Ok(()) | Err(diesel::result::Error::BrokenTransactionManager) => Err(failed),
                    Err(rollback) => Err(rollback.into()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;

    use super::DbConnection;

    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }

    fn open(path: &std::path::Path) -> DbConnection {
        let mut conn = diesel::SqliteConnection::establish(&path.to_string_lossy()).unwrap();
        conn.batch_execute("PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL;")
            .unwrap();
        DbConnection::Sqlite(conn)
    }

    fn count(conn: &mut DbConnection) -> QueryResult<i64> {
        Ok(diesel::sql_query("SELECT count(*) AS n FROM t")
            .get_result::<Count>(conn)?
            .n)
    }

    /// One process reads then writes, as `staff add` does (the trail's head, then its entry),
    /// while another commits a write between the two: both writes take, one after the other.
    /// A deferred transaction failed here at once with "database is locked".
    #[test]
    fn a_write_after_a_read_waits_for_another_process_rather_than_failing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("locks.sqlite");
        open(&path)
            .batch_execute("CREATE TABLE t (n INTEGER)")
            .unwrap();
        let (read, other_may_write) = mpsc::channel();
        let other_path = path.clone();
        let other = thread::spawn(move || {
            other_may_write.recv().unwrap();
            let mut conn = open(&other_path);
            conn.write_transaction(|c| diesel::sql_query("INSERT INTO t VALUES (1)").execute(c))
        });
        let mut conn = open(&path);
        let seen = conn.write_transaction(|c| -> QueryResult<i64> {
            let seen = count(c)?;
            read.send(()).unwrap();
            // The other's write is under way before this one's.
            thread::sleep(Duration::from_millis(300));
            diesel::sql_query("INSERT INTO t VALUES (2)").execute(c)?;
            Ok(seen)
        });
        assert_eq!(seen.expect("the first write takes"), 0);
        other
            .join()
            .unwrap()
            .expect("the other write waits its turn and takes");
        assert_eq!(count(&mut conn).unwrap(), 2);
    }

    #[test]
    fn a_write_transaction_inside_another_is_a_savepoint() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = open(&dir.path().join("nested.sqlite"));
        conn.batch_execute("CREATE TABLE t (n INTEGER)").unwrap();
        conn.write_transaction(|c| -> QueryResult<()> {
            diesel::sql_query("INSERT INTO t VALUES (1)").execute(c)?;
            let undone = c.write_transaction(|c| -> QueryResult<()> {
                diesel::sql_query("INSERT INTO t VALUES (2)").execute(c)?;
                Err(diesel::result::Error::RollbackTransaction)
            });
            assert!(undone.is_err());
            Ok(())
        })
        .unwrap();
        assert_eq!(count(&mut conn).unwrap(), 1);
    }
}
