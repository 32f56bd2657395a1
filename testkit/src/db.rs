//! A database of a test's own, on either backend, and direct SQL on it.

use std::sync::Mutex;

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::SqlQuery;
use diesel::sqlite::Sqlite;

use crate::server::{add_principal, server_bin};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A database of its own for one test.
pub struct TestDb {
    pub backend: Backend,
    pub url: String,
    /// The test's folder: the SQLite file, and the server's audit key and checkpoint file.
    dir: tempfile::TempDir,
    pg: Option<(String, String)>,
    /// The writers added by [`TestDb::principal`]: each opens a shift with an empty drawer on
    /// every server started on the database, as a writer does before selling (cash acts need
    /// an open shift, `--cash-needs-shift`).
    writers: Mutex<Vec<String>>,
    /// Where the last server started on the database listens, for writers added meanwhile.
    pub(crate) live: Mutex<Option<String>>,
    /// The PostgreSQL copies made by [`TestDb::backup`], dropped with the database.
    backups: Mutex<Vec<String>>,
}

/// A copy of a test's database ([`TestDb::backup`]): a file, or a PostgreSQL database.
pub struct Backup(String);

impl TestDb {
    /// `keno-server serve` on this database with `args`, listening anywhere, with the test's
    /// audit key and checkpoint file: for a start a test expects to refuse (spawn it, or take
    /// its output), where [`crate::Server::start`] would wait for it to serve.
    pub fn serve_command(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(crate::server_bin());
        command
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--database-url",
                &self.url,
            ])
            .args(args)
            .env("KENO_AUDIT_KEY", self.audit_key())
            .env("KENO_CHECKPOINTS", self.checkpoints())
            .env("KENO_LOG", "warn");
        command
    }

    /// `None` when PostgreSQL is not configured and this is not CI.
    pub fn new(backend: Backend) -> Option<TestDb> {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let url = format!("sqlite://{}", dir.path().join("keno.sqlite").display());
                Some(TestDb {
                    backend,
                    url,
                    dir,
                    pg: None,
                    writers: Mutex::default(),
                    live: Mutex::default(),
                    backups: Mutex::default(),
                })
            }
            Backend::Postgres => {
                let admin = match std::env::var("KENO_TEST_POSTGRES_URL") {
                    Ok(url) => url,
                    Err(_) if std::env::var("CI").as_deref() == Ok("true") => {
                        panic!("CI=true: KENO_TEST_POSTGRES_URL must name the PostgreSQL server")
                    }
                    Err(_) => {
                        eprintln!(
                            "skipped: set KENO_TEST_POSTGRES_URL to run the PostgreSQL tests"
                        );
                        return None;
                    }
                };
                let name = format!("keno_test_{}", crate::random_hex(8));
                let mut conn = PgConnection::establish(&admin).expect("PostgreSQL reachable");
                diesel::sql_query(format!("CREATE DATABASE {name}"))
                    .execute(&mut conn)
                    .unwrap();
                let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
                Some(TestDb {
                    backend,
                    url: format!("{base}/{name}"),
                    dir: tempfile::tempdir().unwrap(),
                    pg: Some((admin.clone(), name)),
                    writers: Mutex::default(),
                    live: Mutex::default(),
                    backups: Mutex::default(),
                })
            }
        }
    }

    /// A PostgreSQL database made elsewhere (a primary and standby of `scripts/pg-ha`), used
    /// as it is and never dropped; the folder for the key and checkpoints is the test's own.
    pub fn existing(url: &str) -> TestDb {
        TestDb {
            backend: Backend::Postgres,
            url: url.to_string(),
            dir: tempfile::tempdir().unwrap(),
            pg: None,
            writers: Mutex::default(),
            live: Mutex::default(),
            backups: Mutex::default(),
        }
    }

    /// A copy of the database as it stands, taken while no server uses it: an operator's
    /// backup, to [`TestDb::restore`] later.
    pub fn backup(&self) -> Backup {
        match &self.pg {
            Some((admin, name)) => {
                let copy = format!("{name}_b{}", crate::random_hex(4));
                let mut conn = PgConnection::establish(admin).expect("PostgreSQL reachable");
                diesel::sql_query(format!("CREATE DATABASE {copy} TEMPLATE {name}"))
                    .execute(&mut conn)
                    .unwrap();
                self.backups.lock().unwrap().push(copy.clone());
                Backup(copy)
            }
            None => {
                let file = self.sqlite_file();
                let copy = format!("{file}.backup-{}", crate::random_hex(4));
                for suffix in ["", "-wal"] {
                    let from = format!("{file}{suffix}");
                    if std::path::Path::new(&from).exists() {
                        std::fs::copy(&from, format!("{copy}{suffix}")).unwrap();
                    }
                }
                Backup(copy)
            }
        }
    }

    /// Puts `backup` back in place of the database (no server using it).
    pub fn restore(&self, backup: &Backup) {
        match &self.pg {
            Some((admin, name)) => {
                let mut conn = PgConnection::establish(admin).expect("PostgreSQL reachable");
                for sql in [
                    format!("DROP DATABASE {name} WITH (FORCE)"),
                    format!("CREATE DATABASE {name} TEMPLATE {}", backup.0),
                ] {
                    diesel::sql_query(sql).execute(&mut conn).unwrap();
                }
            }
            None => {
                let file = self.sqlite_file();
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{file}{suffix}"));
                    let from = format!("{}{suffix}", backup.0);
                    if suffix != "-shm" && std::path::Path::new(&from).exists() {
                        std::fs::copy(&from, format!("{file}{suffix}")).unwrap();
                    }
                }
            }
        }
    }

    fn sqlite_file(&self) -> String {
        self.url
            .strip_prefix("sqlite://")
            .expect("a SQLite database's URL")
            .to_string()
    }

    /// The signing key of the test's servers' audit checkpoints (`serve --audit-key`).
    pub fn audit_key(&self) -> std::path::PathBuf {
        self.dir.path().join("keno-audit.key")
    }

    /// The checkpoint file of the test's servers (`serve --checkpoints`).
    pub fn checkpoints(&self) -> std::path::PathBuf {
        self.dir.path().join("keno-checkpoints.jsonl")
    }

    /// Adds a principal through the real command line; returns its token. A writer opens a
    /// shift with an empty drawer on the running server, or on the next one started.
    pub fn principal(&self, role: &str, name: &str, site_terminal: Option<(&str, &str)>) -> String {
        let token = self.principal_without_shift(role, name, site_terminal);
        if role == "writer" && site_terminal.is_some() {
            self.writers.lock().unwrap().push(token.clone());
            let live = self.live.lock().unwrap().clone();
            if let Some(base) = live {
                crate::server::open_shift(&base, &token);
            }
        }
        token
    }

    /// As [`TestDb::principal`], a writer left to open their own shift.
    pub fn principal_without_shift(
        &self,
        role: &str,
        name: &str,
        site_terminal: Option<(&str, &str)>,
    ) -> String {
        add_principal(server_bin(), &self.url, role, name, site_terminal)
            .unwrap_or_else(|e| panic!("{e:#}"))
    }

    /// Opens the shifts of the writers added so far on the server at `base`.
    pub(crate) fn serving_at(&self, base: &str) {
        *self.live.lock().unwrap() = Some(base.to_string());
        let writers = self.writers.lock().unwrap().clone();
        for token in writers {
            crate::server::open_shift(base, &token);
        }
    }

    /// Opens every writer's shift on the server started last (after a suspension ends).
    pub fn open_shifts(&self) {
        let live = self.live.lock().unwrap().clone();
        if let Some(base) = live {
            self.serving_at(&base);
        }
    }

    /// A session of its own on the database, for many queries.
    pub fn session(&self) -> Session {
        Session::open(&self.url).unwrap_or_else(|e| panic!("{}: {e}", self.url))
    }

    /// A number from SQL (`SELECT ... AS n`), read directly from the database.
    pub fn query_i64(&self, sql: &str) -> i64 {
        self.session().i64(sql)
    }

    /// Runs SQL directly on the database, as an auditor's or a test's hand would.
    pub fn execute(&self, sql: &str) -> usize {
        self.try_execute(sql).unwrap()
    }

    /// As [`TestDb::execute`], for statements the database may refuse.
    pub fn try_execute(&self, sql: &str) -> diesel::QueryResult<usize> {
        self.session().execute(sql)
    }

    /// One text value from SQL (`SELECT ... AS s`).
    pub fn query_text(&self, sql: &str) -> String {
        self.session().text(sql)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some((admin, name)) = &self.pg {
            if let Ok(mut conn) = PgConnection::establish(admin) {
                let backups = self.backups.lock().map(|b| b.clone()).unwrap_or_default();
                for name in std::iter::once(name).chain(&backups) {
                    let _ =
                        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                            .execute(&mut conn);
                }
            }
        }
    }
}

/// One connection to a database (`sqlite://FILE` or `postgres://...`), kept for many queries:
/// a harness polling PostgreSQL with a new session each time would churn through its sessions.
/// Shared between threads; one query at a time.
pub struct Session {
    url: String,
    conn: Mutex<Conn>,
}

enum Conn {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

#[derive(QueryableByName)]
struct N {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct S {
    #[diesel(sql_type = diesel::sql_types::Text)]
    s: String,
}

impl Session {
    pub fn open(url: &str) -> ConnectionResult<Session> {
        let conn = match url.strip_prefix("sqlite://") {
            Some(path) => {
                let mut conn = SqliteConnection::establish(path)?;
                // A running server writes too (the leader's lease, its checkpoints): wait for
                // its turn as the server's own connections do, never fail as "locked".
                diesel::sql_query("PRAGMA busy_timeout = 10000")
                    .execute(&mut conn)
                    .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                Conn::Sqlite(conn)
            }
            None => Conn::Postgres(PgConnection::establish(url)?),
        };
        Ok(Session {
            url: url.to_string(),
            conn: Mutex::new(conn),
        })
    }

    /// The database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A number from SQL (`SELECT ... AS n`, a bigint); panics with the SQL on an error.
    pub fn i64(&self, sql: &str) -> i64 {
        self.row::<N>(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .n
    }

    /// As [`Session::i64`], for a query that may fail (its database gone, say).
    pub fn try_i64(&self, sql: &str) -> diesel::QueryResult<i64> {
        self.row::<N>(sql).map(|r| r.n)
    }

    /// One text value from SQL (`SELECT ... AS s`); panics with the SQL on an error.
    pub fn text(&self, sql: &str) -> String {
        self.try_text(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// As [`Session::text`], for a query that may fail or find no row.
    pub fn try_text(&self, sql: &str) -> diesel::QueryResult<String> {
        self.row::<S>(sql).map(|r| r.s)
    }

    /// Runs a statement; the rows it changed.
    pub fn execute(&self, sql: &str) -> diesel::QueryResult<usize> {
        match &mut *self.lock() {
            Conn::Sqlite(conn) => diesel::sql_query(sql).execute(conn),
            Conn::Postgres(conn) => diesel::sql_query(sql).execute(conn),
        }
    }

    /// The first row of a query.
    fn row<T>(&self, sql: &str) -> diesel::QueryResult<T>
    where
        T: QueryableByName<Sqlite> + QueryableByName<Pg> + 'static,
        SqlQuery: for<'a> diesel::query_dsl::LoadQuery<'a, SqliteConnection, T>
            + for<'a> diesel::query_dsl::LoadQuery<'a, PgConnection, T>,
    {
        match &mut *self.lock() {
            Conn::Sqlite(conn) => diesel::sql_query(sql).get_result(conn),
            Conn::Postgres(conn) => diesel::sql_query(sql).get_result(conn),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Conn> {
        // A test that panicked mid-query leaves the connection as good as it was.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}
