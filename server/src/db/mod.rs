//! The database: SQLite (embedded default) or PostgreSQL, from one diesel codebase.
//!
//! One `MultiConnection` enum serves both; where the backends differ (row locks), code matches
//! on the variant, as vaultwarden does. Migrations for each backend are embedded and run at
//! start.

pub mod prepared;
pub mod schema;
pub mod sqlite;
pub mod wal_sync;
mod write;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use anyhow::Context;
use diesel::connection::SimpleConnection;
use diesel::migration::MigrationSource;
use diesel::prelude::*;
use diesel::r2d2::{self, ManageConnection, R2D2Connection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/postgres");

#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Sqlite(diesel::SqliteConnection),
    Pg(diesel::PgConnection),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Backend {
    /// `sqlite://PATH` (or a bare path) or `postgres://...` / `postgresql://...`.
    pub fn from_url(url: &str) -> anyhow::Result<Backend> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres(url.to_string()))
        } else if let Some(path) = url.strip_prefix("sqlite://") {
            Ok(Backend::Sqlite(PathBuf::from(path)))
        } else if url.contains("://") {
            anyhow::bail!("unsupported database URL {url:?}: use sqlite://PATH or postgres://...")
        } else {
            Ok(Backend::Sqlite(PathBuf::from(url)))
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }
}

/// How long a request waits for a connection of the pool before it is answered 503 (try
/// again): the pool busy, or the database out of reach (failing over).
const CHECKOUT_WAIT: Duration = Duration::from_secs(10);

/// r2d2's connection timeout, which is also what bounds its waits between attempts to connect:
/// after a failed one it waits twice as long as before, up to half of this. With 10 s a pool
/// whose database failed over tried at 0.4, 1.2, 2.8, 6 and 11 s, and found a primary that took
/// writes at 4 s only at 6 s; with 2 s it tries again every second. Checkouts wait
/// `CHECKOUT_WAIT` all the same.
const RECONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Opens connections of the one backend the URL names (the derive's `establish` would try
/// each backend in turn, and SQLite accepts any string as a file name).
pub struct Manager {
    backend: Backend,
    /// PostgreSQL's `application_name` of every session: the server instance, so that a
    /// standby can end the sessions of a leader that is stuck (`leader.rs`).
    session_name: String,
    /// A pool that writes keeps no session that cannot: one on a primary being demoted (or a
    /// standby) is dropped at checkout, and libpq's `target_session_attrs=read-write` finds
    /// the node that takes writes for the next. The auditors' tools only read, from any node.
    writes: bool,
    /// Who checkpoints an SQLite WAL: the server's own thread, or SQLite at commit.
    checkpoints: sqlite::Checkpoints,
}

impl ManageConnection for Manager {
    type Connection = DbConnection;
    type Error = r2d2::Error;

    fn connect(&self) -> Result<DbConnection, r2d2::Error> {
        match &self.backend {
            Backend::Sqlite(path) => Ok(DbConnection::Sqlite(sqlite::connect(
                path,
                self.checkpoints,
            )?)),
            Backend::Postgres(url) => {
                let mut conn =
                    diesel::PgConnection::establish(url).map_err(r2d2::Error::ConnectionError)?;
                name_session(&mut conn, &self.session_name).map_err(r2d2::Error::QueryError)?;
                Ok(DbConnection::Pg(conn))
            }
        }
    }

    fn is_valid(&self, conn: &mut DbConnection) -> Result<(), r2d2::Error> {
        match conn {
            // One round trip, as the ping it stands for.
            DbConnection::Pg(pg) if self.writes => {
                takes_writes(pg).map_err(r2d2::Error::QueryError)
            }
            _ => conn.ping().map_err(r2d2::Error::QueryError),
        }
    }

    fn has_broken(&self, conn: &mut DbConnection) -> bool {
        conn.is_broken()
    }
}

pub type PooledConnection = r2d2::PooledConnection<Manager>;

/// The session takes writes: an error like the one a write would meet when it is read-only
/// (`transaction_read_only` is on in a standby and on a primary being demoted).
fn takes_writes(conn: &mut diesel::PgConnection) -> QueryResult<()> {
    #[derive(QueryableByName)]
    struct ReadOnly {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        read_only: bool,
    }
    let session =
        diesel::sql_query("SELECT current_setting('transaction_read_only') = 'on' AS read_only")
            .get_result::<ReadOnly>(conn)?;
    if session.read_only {
        let why = "the database session is read-only (a standby, or a primary being demoted)";
        return Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::ReadOnlyTransaction,
            Box::new(why.to_string()),
        ));
    }
    Ok(())
}

/// The pool, and for SQLite the lock that makes writers take turns in this process, so that a
/// write transaction never fails to upgrade its read lock.
#[derive(Clone)]
pub struct Db {
    pool: r2d2::Pool<Manager>,
    sqlite_writer: Option<Arc<Mutex<()>>>,
    backend: Backend,
    checkpoints: sqlite::Checkpoints,
    /// The server's SQLite WAL, kept open: its sale writer commits without a sync and a thread
    /// beside it syncs (`wal_sync`). None on PostgreSQL and for the admin commands.
    wal: Option<Arc<wal_sync::WalFile>>,
}

/// The sale writer's connection (`wal_sync`): on SQLite one of its own, outside the pool,
/// committing without a sync (a pooled one would go back to the pool so); on PostgreSQL a
/// pooled one, as any other.
pub enum WriterConn {
    Unsynced(DbConnection),
    Pooled(PooledConnection),
}

impl std::ops::Deref for WriterConn {
    type Target = DbConnection;
    fn deref(&self) -> &DbConnection {
        match self {
            WriterConn::Unsynced(c) => c,
            WriterConn::Pooled(c) => c,
        }
    }
}

impl std::ops::DerefMut for WriterConn {
    fn deref_mut(&mut self) -> &mut DbConnection {
        match self {
            WriterConn::Unsynced(c) => c,
            WriterConn::Pooled(c) => c,
        }
    }
}

impl Db {
    /// Connects, creating the SQLite file (and its folder) if needed, private to the server's
    /// user, and runs the migrations.
    pub fn open(url: &str, max_connections: u32) -> anyhow::Result<Db> {
        Db::open_as(url, max_connections, "keno-server")
    }

    /// `open`, naming the sessions after a server instance.
    /// The lock the one server serving an SQLite database holds while it serves: SQLite serves
    /// one process at a time, so a second `serve` on the same file is refused at start rather
    /// than contending for the lead (several instances need PostgreSQL). Nothing for PostgreSQL.
    pub fn serving(url: &str) -> anyhow::Result<Serving> {
        let Backend::Sqlite(path) = Backend::from_url(url)? else {
            return Ok(Serving(None));
        };
        let file = std::fs::File::open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(Serving(Some(file))),
            Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
                "{}: another keno-server is already serving this SQLite database; SQLite \
                 serves one process (stop it first, or run several instances on PostgreSQL)",
                path.display()
            ),
            Err(std::fs::TryLockError::Error(e)) => {
                Err(e).with_context(|| format!("cannot lock {}", path.display()))
            }
        }
    }

    pub fn open_as(url: &str, max_connections: u32, session_name: &str) -> anyhow::Result<Db> {
        Db::open_with(
            url,
            max_connections,
            session_name,
            sqlite::Checkpoints::AtCommit,
        )
    }

    /// `open_as` for the server: on SQLite its commits leave the WAL to a thread of its own,
    /// started here (`sqlite::checkpoint_in_background`), which ends with the last `Db`.
    pub fn open_to_serve(
        url: &str,
        max_connections: u32,
        session_name: &str,
    ) -> anyhow::Result<Db> {
        let db = Db::open_with(
            url,
            max_connections,
            session_name,
            sqlite::Checkpoints::InBackground,
        )?;
        if let (Backend::Sqlite(path), Some(turn)) = (&db.backend, &db.sqlite_writer) {
            sqlite::checkpoint_in_background(path.clone(), Arc::downgrade(turn));
        }
        // The pool's connections have read the database (the migrations' check), so SQLite has
        // made its WAL, and keeps it while any of them is open: the server's life.
        let mut db = db;
        if let DbConnection::Sqlite(conn) = &mut *db.conn()? {
            let file = sqlite::database_file(conn)?;
            let wal = wal_sync::WalFile::open(&file)
                .with_context(|| format!("cannot open and sync the WAL of {}", file.display()))?;
            db.wal = Some(Arc::new(wal));
        }
        Ok(db)
    }

    fn open_with(
        url: &str,
        max_connections: u32,
        session_name: &str,
        checkpoints: sqlite::Checkpoints,
    ) -> anyhow::Result<Db> {
        let backend = Backend::from_url(url)?;
        if let Backend::Sqlite(path) = &backend {
            // Made 0600 (its folder 0700) before SQLite opens it, which then makes the -wal
            // and -shm 0600 too: they hold serials and voucher codes (issue 31).
            crate::private_files::sqlite_database(path)?;
            // WAL lets displays and checks read while a sale writes; the setting is stored in
            // the file, so it is made once, before the pool opens its connections.
            let mut conn = diesel::SqliteConnection::establish(&path.to_string_lossy())
                .with_context(|| format!("cannot open {}", path.display()))?;
            conn.batch_execute("PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL;")?;
        }
        let db = Db::connect(backend, max_connections, session_name, checkpoints, true)?;
        db.migrate()?;
        Ok(db)
    }

    /// Opens an existing database to read it (the auditors' tools): a missing SQLite file is
    /// an error rather than a new database, and nothing is migrated: a schema older or newer
    /// than this program's is refused, not changed.
    pub fn open_existing(url: &str, max_connections: u32) -> anyhow::Result<Db> {
        let backend = Backend::from_url(url)?;
        if let Backend::Sqlite(path) = &backend {
            anyhow::ensure!(
                path.is_file(),
                "there is no database at {} (a keno-server database URL: sqlite://PATH or postgres://...)",
                path.display()
            );
        }
        let db = Db::connect(
            backend,
            max_connections,
            "keno-server-reader",
            sqlite::Checkpoints::AtCommit,
            false,
        )?;
        db.check_schema()?;
        Ok(db)
    }

    fn connect(
        backend: Backend,
        max_connections: u32,
        session_name: &str,
        checkpoints: sqlite::Checkpoints,
        writes: bool,
    ) -> anyhow::Result<Db> {
        let pool = r2d2::Pool::builder()
            .max_size(max_connections)
            .connection_timeout(RECONNECT_TIMEOUT)
            // On SQLite a connection cannot break. On PostgreSQL a session can end under the
            // pool (a server restart, a failover, or a standby ending the sessions of a leader
            // that was stuck: `leader.rs`): a ping at checkout costs a round trip but keeps a
            // dead session from failing the next request that draws it.
            .test_on_check_out(matches!(backend, Backend::Postgres(_)))
            // Not `build`, which would give the whole pool only RECONNECT_TIMEOUT to connect.
            .build_unchecked(Manager {
                backend: backend.clone(),
                session_name: session_name.to_string(),
                writes,
                checkpoints,
            });
        pool.get_timeout(CHECKOUT_WAIT)
            .with_context(|| format!("cannot connect to the {} database", backend.name()))?;
        Ok(Db {
            pool,
            sqlite_writer: matches!(backend, Backend::Sqlite(_)).then(|| Arc::new(Mutex::new(()))),
            backend,
            checkpoints,
            wal: None,
        })
    }

    /// The migrations applied to the database are exactly this program's.
    fn check_schema(&self) -> anyhow::Result<()> {
        #[derive(QueryableByName)]
        struct Applied {
            #[diesel(sql_type = diesel::sql_types::Text)]
            version: String,
        }
        let mut conn = self.conn()?;
        let ours: Vec<String> = match &*conn {
            DbConnection::Sqlite(_) => versions::<diesel::sqlite::Sqlite>(SQLITE_MIGRATIONS)?,
            DbConnection::Pg(_) => versions::<diesel::pg::Pg>(POSTGRES_MIGRATIONS)?,
        };
        let applied: Vec<String> =
            diesel::sql_query("SELECT version FROM __diesel_schema_migrations")
                .load::<Applied>(&mut *conn)
                .context("this is not a keno-server database (it has no migrations table)")?
                .into_iter()
                .map(|a| a.version)
                .collect();
        let missing: Vec<&String> = ours.iter().filter(|v| !applied.contains(v)).collect();
        let unknown: Vec<&String> = applied.iter().filter(|v| !ours.contains(v)).collect();
        anyhow::ensure!(
            missing.is_empty(),
            "the database's schema is older than this program (migrations {missing:?} not applied): \
             start this version of `keno-server serve` on it once to migrate it"
        );
        anyhow::ensure!(
            unknown.is_empty(),
            "the database's schema is newer than this program (migrations {unknown:?}): use the \
             keno-server that wrote it"
        );
        Ok(())
    }

    fn migrate(&self) -> anyhow::Result<()> {
        // A database already at this program's schema needs nothing, so the server's own role
        // is never asked to create in the schema (PostgreSQL 15 lets only its owner): the
        // owner migrates, the server's role serves (docs/deployment.md).
        if self.check_schema().is_ok() {
            return Ok(());
        }
        let mut conn = self.conn()?;
        let migrations = match &*conn {
            DbConnection::Sqlite(_) => SQLITE_MIGRATIONS,
            DbConnection::Pg(_) => POSTGRES_MIGRATIONS,
        };
        // Instances started together on a new PostgreSQL database migrate one at a time: the
        // others find it migrated. (SQLite serves one process: `Db::serving`.)
        let pg = matches!(&*conn, DbConnection::Pg(_));
        if pg {
            diesel::sql_query(format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))
                .execute(&mut *conn)?;
        }
        let migrated = conn
            .run_pending_migrations(migrations)
            .map(|_| ())
            .map_err(|e| anyhow::anyhow!("database migration failed: {e}"));
        if pg {
            diesel::sql_query(format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"))
                .execute(&mut *conn)?;
        }
        migrated
    }

    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    pub fn conn(&self) -> Result<PooledConnection, r2d2::PoolError> {
        self.pool.get_timeout(CHECKOUT_WAIT)
    }

    /// A connection for a writer whose commits are synced behind it, by the thread of
    /// [`Db::wal`] (`wal_sync`): without one, a pooled connection that syncs at each commit.
    pub fn writer_conn(&self) -> anyhow::Result<WriterConn> {
        Ok(match (&self.backend, &self.wal) {
            (Backend::Sqlite(path), Some(_)) => {
                let mut conn = sqlite::connect(path, self.checkpoints)?;
                conn.batch_execute(sqlite::UNSYNCED_COMMITS)?;
                WriterConn::Unsynced(DbConnection::Sqlite(conn))
            }
            _ => WriterConn::Pooled(self.conn()?),
        })
    }

    /// The server's SQLite WAL, which [`Db::writer_conn`]'s commits leave unsynced; none on
    /// PostgreSQL, whose commits are synced before they return.
    pub fn wal(&self) -> Option<Arc<wal_sync::WalFile>> {
        self.wal.clone()
    }

    /// Everything committed so far is on the disk, before something read back is told to the
    /// outside: it may tell of a sale [`Db::writer_conn`] committed and has not yet synced. A
    /// failed sync stops the server here and now (`wal_sync::stop_serving`).
    pub fn sync_committed_or_stop(&self) {
        if let Some(wal) = &self.wal {
            if let Err(e) = wal.sync() {
                wal_sync::stop_serving(e);
            }
        }
    }

    /// Takes the SQLite writer's turn (nothing on PostgreSQL, whose row locks serialize).
    pub fn writer_turn(&self) -> Option<MutexGuard<'_, ()>> {
        self.sqlite_writer
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

/// The versions of a set of embedded migrations, as diesel records them.
fn versions<DB: diesel::backend::Backend>(source: EmbeddedMigrations) -> anyhow::Result<Vec<String>>
where
    EmbeddedMigrations: MigrationSource<DB>,
{
    Ok(MigrationSource::<DB>::migrations(&source)
        .map_err(|e| anyhow::anyhow!("embedded migrations: {e}"))?
        .iter()
        .map(|m| m.name().version().to_string())
        .collect())
}

/// Names a PostgreSQL session (`application_name`) after the instance it serves.
pub fn name_session(conn: &mut diesel::PgConnection, name: &str) -> QueryResult<()> {
    diesel::sql_query("SELECT set_config('application_name', $1, false)")
        .bind::<diesel::sql_types::Text, _>(name)
        .execute(conn)?;
    Ok(())
}

/// A PostgreSQL session of its own, outside the pool, named `name`.
pub fn connect_pg(url: &str, name: &str) -> anyhow::Result<diesel::PgConnection> {
    let mut conn = diesel::PgConnection::establish(url)?;
    name_session(&mut conn, name)?;
    Ok(conn)
}

/// Held while this process serves an SQLite database ([`Db::serving`]): the lock is the file's
/// own, let go when the process ends however it ends.
pub struct Serving(#[allow(dead_code)] Option<std::fs::File>);

/// The PostgreSQL advisory lock the migrations are run under ("kenomig").
const MIGRATION_LOCK: i64 = 0x006b_656e_6f6d_6967;

/// The database when none is named: the embedded SQLite file under `data/`.
pub const DEFAULT_DATABASE: &str = "sqlite://data/keno.sqlite";

/// Now, as stored: game time (`time`), microseconds since the Unix epoch.
pub fn now_micros() -> i64 {
    crate::time::now()
}

/// A stored time as RFC 3339 in UTC, as the API shows times.
pub fn rfc3339(micros: i64) -> String {
    chrono::DateTime::from_timestamp_micros(micros)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A nullable text column of words (a payment method) read as `Option<T>`: diesel's
/// `#[diesel(deserialize_as = ...)]` converts with `try_into`, which `Option<String>` cannot do
/// into `Option<T>`; this reads the column and parses it, so a word that does not parse is a
/// deserialization error (an internal error), never a default.
pub struct NullableWord<T>(Option<T>);

impl<T, DB> diesel::deserialize::Queryable<diesel::sql_types::Nullable<diesel::sql_types::Text>, DB>
    for NullableWord<T>
where
    DB: diesel::backend::Backend,
    Option<String>: diesel::deserialize::FromStaticSqlRow<
        diesel::sql_types::Nullable<diesel::sql_types::Text>,
        DB,
    >,
    T: TryFrom<String>,
    T::Error: std::error::Error + Send + Sync + 'static,
{
    type Row = Option<String>;

    fn build(row: Option<String>) -> diesel::deserialize::Result<Self> {
        Ok(NullableWord(row.map(T::try_from).transpose()?))
    }
}

impl<T> From<NullableWord<T>> for Option<T> {
    fn from(word: NullableWord<T>) -> Option<T> {
        word.0
    }
}

/// Runs the same diesel code on the concrete connection of either backend, for what
/// `MultiConnection` cannot express portably (batch inserts, row locks, backend-typed selects),
/// as vaultwarden's `db_run!` does.
macro_rules! per_backend {
    ($conn:expr, |$c:ident| $body:expr) => {
        match $conn {
            $crate::db::DbConnection::Pg($c) => $body,
            $crate::db::DbConnection::Sqlite($c) => $body,
        }
    };
}
pub(crate) use per_backend;
