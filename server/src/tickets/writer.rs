//! The sale writer: commits sales in batches (group commit).
//!
//! Handlers check and price a sale on their own thread, then queue it to the writer thread its
//! terminal is routed to. That thread takes whatever sales are waiting, commits them in one
//! transaction (`batch`: a refusal or a duplicate is decided before anything is written, so it
//! leaves the others alone) and answers each. A commit per batch instead of per sale, one kept
//! connection instead of a pool's, and no hop through the blocking pool are what let a two-core
//! machine sell thousands of tickets a second.
//!
//! The open game is held against the close for the whole batch (PostgreSQL: `FOR SHARE`;
//! SQLite: the writer turn), so a batch lands entirely in the game that is open when it commits.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::batch::commit_sales;
use super::sale::{lock_open_game, Outcome, Sale};
use crate::db::wal_sync::{self, AfterSync, Synced, Syncing};
use crate::db::{now_micros, Db, WriterConn};
use crate::error::{DomainResult, Failure};
use getrandom::SysRng;
use keno_api::Refusal;
use keno_core::serial::new_serial;
use keno_core::ShiftRule;
use rand_core::UnwrapErr;

/// Sales waiting longer than this many in the queue make new ones wait (back-pressure).
const QUEUE: usize = 4096;
/// Most sales in one transaction.
const BATCH: usize = 512;

struct Job {
    sale: Sale,
    reply: oneshot::Sender<Result<Outcome, Failure>>,
}

#[derive(Clone)]
pub struct SaleWriter {
    /// One queue per writer thread; a terminal's sales always go to the same one.
    queues: Arc<Vec<mpsc::Sender<Job>>>,
}

impl SaleWriter {
    /// Starts the writer threads on `db`, one unless told (`--sale-writers`). One thread makes
    /// the largest batches: on SQLite (one writer at a time anyway, and its page cache stays
    /// warm) and on a 2-core machine with PostgreSQL, where a second thread's smaller batches
    /// cost PostgreSQL half as much again per sale (issue 21's figures). More threads each
    /// append on a chain of the audit trail of their own and take their own terminals' numbers,
    /// so they do not wait on each other.
    /// A writer's sale needs their shift open at the terminal under `shift`
    /// (`--cash-needs-shift`).
    pub fn start(
        db: Db,
        threads: Option<usize>,
        faults: crate::faults::FaultDelays,
        shift: ShiftRule,
    ) -> SaleWriter {
        let threads = threads.unwrap_or(1);
        let queues = (0..threads.max(1))
            .map(|i| {
                let (queue, jobs) = mpsc::channel(QUEUE);
                let (db, faults) = (db.clone(), faults.clone());
                std::thread::Builder::new()
                    .name(format!("sale-writer-{i}"))
                    .spawn(move || run((db, i), jobs, faults, shift))
                    .expect("a sale writer thread starts");
                queue
            })
            .collect();
        SaleWriter {
            queues: Arc::new(queues),
        }
    }

    /// Commits one sale; `None` when no game is open for sale.
    pub async fn commit(&self, sale: Sale) -> DomainResult<Option<Outcome>> {
        let (reply, answer) = oneshot::channel();
        // A terminal's numbers are taken by one writer only: two writers taking the numbers of
        // overlapping terminals could each hold a row the other waits for.
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (&sale.ticket.site, &sale.ticket.terminal).hash(&mut hasher);
        let queue = &self.queues[(hasher.finish() % self.queues.len() as u64) as usize];
        queue
            .send(Job { sale, reply })
            .await
            .map_err(|_| Failure::Internal(anyhow::anyhow!("the sale writer stopped")))?;
        match answer.await {
            Ok(Ok(outcome)) => Ok(Some(outcome)),
            Ok(Err(e)) if e.refusal() == Some(Refusal::GameClosed) => Ok(None),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(Failure::Internal(anyhow::anyhow!(
                "the sale writer stopped"
            ))),
        }
    }

    /// Commits one sale into the game open for sale; `None` when none is open. A game that
    /// closes as the sale commits sends it to the next game, once the clock has opened it
    /// (within a second).
    pub async fn commit_open(&self, sale: &Sale) -> DomainResult<Option<Outcome>> {
        for _ in 0..25 {
            if let Some(outcome) = self.commit(sale.clone()).await? {
                return Ok(Some(outcome));
            }
            tokio::time::sleep(std::time::Duration::from_millis(40)).await;
        }
        Ok(None)
    }
}

fn run(
    (db, i): (Db, usize),
    mut jobs: mpsc::Receiver<Job>,
    faults: crate::faults::FaultDelays,
    shift: ShiftRule,
) {
    // The writer's own connection, kept between batches: a checkout from PostgreSQL's pool
    // costs a round trip (its liveness check), and SQLite's is the writer's alone (it commits
    // without a sync: `Db::writer_conn`). It is given up after any failure, and the next
    // batch takes a new one.
    let mut conn: Option<WriterConn> = None;
    let answers = Answers::start(&db, i);
    let mut last: Option<(Instant, usize)> = None;
    while let Some(first) = jobs.blocking_recv() {
        let busy = busy(last, Instant::now());
        let batch = gather(
            &mut jobs,
            first,
            busy.then_some(|| std::thread::sleep(GATHER)),
        );
        let size = batch.len();
        let (mut sales, replies): (Vec<Sale>, Vec<_>) =
            batch.into_iter().map(|j| (j.sale, j.reply)).unzip();
        let outcomes = commit_batch(&db, &mut conn, &mut sales, (&faults, shift));
        answers.send(replies.into_iter().zip(outcomes).collect());
        last = Some((Instant::now(), size));
    }
}

/// A sale's answer, and where it goes.
type Answer = (
    oneshot::Sender<Result<Outcome, Failure>>,
    Result<Outcome, Failure>,
);

/// How a batch's sales are answered: on PostgreSQL at once (its commit returned once synced);
/// on SQLite by the thread that syncs the WAL behind the writer, so that the writer commits
/// the next batch meanwhile (`db::wal_sync`).
enum Answers {
    Now,
    AfterSync(AfterSync<Vec<Answer>>),
}

impl Answers {
    fn start(db: &Db, i: usize) -> Answers {
        let Some(wal) = db.wal() else {
            return Answers::Now;
        };
        let syncing = Syncing {
            sync: move || wal.sync(),
            deliver,
            failed: wal_sync::stop_serving,
        };
        let after = AfterSync::start(format!("wal-sync-{i}"), syncing)
            .expect("the sale writer's WAL sync thread starts");
        Answers::AfterSync(after)
    }

    /// The sync thread gone (it ends only by a panic), nothing more can be answered as
    /// durable: the server stops as for a failed sync.
    fn send(&self, answers: Vec<Answer>) {
        match self {
            Answers::Now => deliver(answers, Synced::Durable),
            Answers::AfterSync(after) => {
                if let Err(answers) = after.hand(answers) {
                    deliver(answers, Synced::Unknown);
                    wal_sync::stop_serving(std::io::Error::other("the WAL sync thread ended"));
                }
            }
        }
    }
}

/// Answers each sale; a sale made whose sync failed is answered as unknown, to be sent again
/// under its request id once the server is started again.
fn deliver(answers: Vec<Answer>, synced: Synced) {
    for (reply, outcome) in answers {
        let outcome = match (synced, outcome) {
            (Synced::Unknown, Ok(_)) => Err(Failure::sync_failed()),
            (_, outcome) => outcome,
        };
        // The caller may have gone (a dropped connection): the sale stands all the same, and
        // a retry with its request_id finds it.
        let _ = reply.send(outcome);
    }
}

/// Sales keep coming from several terminals at once: the last batch held more than one and
/// was committed within `BUSY_WITHIN`. One terminal selling one sale after another never is:
/// no other sale would come while its next one waited.
fn busy(last: Option<(Instant, usize)>, now: Instant) -> bool {
    last.is_some_and(|(at, size)| size > 1 && now.duration_since(at) < BUSY_WITHIN)
}

/// How recent the last batch must be for sales to count as still coming.
const BUSY_WITHIN: Duration = Duration::from_millis(5);
/// How long a small batch waits for more sales while sales keep coming. A commit's cost is
/// mostly the batch's (its WAL pages and fsync on SQLite, its round trips on PostgreSQL): at
/// 2,000 sales a second a batch held one or two sales, and each sale paid for nearly a whole
/// commit (issue 37). 2 ms more for a sale at a busy counter, none at a quiet one.
const GATHER: Duration = Duration::from_millis(2);
/// A batch this large already shares its commit well: it is committed at once.
const GATHERED: usize = 8;

/// The first job and whatever is waiting behind it, up to `BATCH`; with a `wait` (the writer
/// busy: `GATHER`'s sleep) and a small batch, what arrived while it waited too.
fn gather<T>(jobs: &mut mpsc::Receiver<T>, first: T, wait: Option<impl FnOnce()>) -> Vec<T> {
    let mut batch = vec![first];
    let drain = |batch: &mut Vec<T>, jobs: &mut mpsc::Receiver<T>| {
        while batch.len() < BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
    };
    drain(&mut batch, jobs);
    if let Some(wait) = wait.filter(|_| batch.len() < GATHERED) {
        wait();
        drain(&mut batch, jobs);
    }
    batch
}

fn closed() -> Failure {
    Failure::refuse(Refusal::GameClosed, "no game is open for sale")
}

/// One transaction for the batch. Any failure in it (on PostgreSQL an error aborts the whole
/// transaction) sends each sale through a transaction of its own, so that one cannot sink the
/// others; a sale already made is found before inserting, so failures are rare. A database out
/// of reach (failing over) is no sale's fault: every sale of the batch is answered 503 at once,
/// to be sent again, rather than each waiting in turn for a connection.
///
/// A batch of plain sales is first tried without looking its request ids up: a retry is rare,
/// and the unique index on (writer, request id) refuses it. That refusal sends the batch
/// again, looked up, with serials drawn again (a serial already taken fails a commit the same
/// way). Saved per batch: a round trip on PostgreSQL, a statement parsed on SQLite.
fn commit_batch(
    db: &Db,
    kept: &mut Option<WriterConn>,
    tickets: &mut [Sale],
    (faults, shift): (&crate::faults::FaultDelays, ShiftRule),
) -> Vec<Result<Outcome, Failure>> {
    let mut attempt = |tickets: &mut [Sale], look_up: bool| -> Attempt {
        if look_up {
            redraw_serials(tickets);
        }
        let mut conn = match kept.take() {
            Some(conn) => conn,
            None => db.writer_conn()?,
        };
        let pause = Some(crate::store::Pause(faults, "sale"));
        let done = crate::store::transact(db, &mut conn, pause, |conn| {
            // Rule 9.2: past its closing time a game takes no more sales, even before the clock
            // has closed it (on PostgreSQL a steady stream of shared locks could hold the close
            // off).
            let game = lock_open_game(conn)?.filter(|g| g.closes_at > now_micros());
            let Some(game) = game else {
                return Ok::<_, Failure>(tickets.iter().map(|_| Err(closed())).collect());
            };
            commit_sales(conn, tickets, &game, (look_up, shift))
        });
        if done.is_ok() {
            *kept = Some(conn);
        }
        done
    };
    let first = match attempt(tickets, false) {
        Err(e) if e.is_duplicate() => attempt(tickets, true),
        first => first,
    };
    match first {
        Ok(outcomes) => outcomes,
        Err(e) if e.out_of_reach() || e.failed_at_commit() => {
            tracing::warn!(error = %e, sales = tickets.len(), "batch failed: the database is out of reach");
            // Lost in the COMMIT, the batch may have been sold: its terminals send it again
            // under the same request ids and are answered with what was sold.
            let unknown = e.failed_at_commit();
            let answer = || {
                if unknown {
                    Failure::outcome_unknown()
                } else {
                    Failure::unavailable()
                }
            };
            tickets.iter().map(|_| Err(answer())).collect()
        }
        Err(e) if tickets.len() > 1 || e.is_duplicate() => {
            if !e.is_duplicate() {
                tracing::warn!(error = %e, sales = tickets.len(), "batch failed; committing its sales one by one");
            }
            one_by_one(tickets, |one| attempt(one, true))
        }
        Err(e) => vec![Err(e)],
    }
}

/// New serials for sales tried again: drawn before the writer's turn (`Prepared::into_sale`),
/// a serial is drawn in it only for a commit that failed.
fn redraw_serials(sales: &mut [Sale]) {
    let mut rng = UnwrapErr(SysRng);
    for s in sales {
        s.ticket.serial = new_serial(&mut rng);
    }
}

type Attempt = Result<Vec<Result<Outcome, Failure>>, Failure>;

/// Each sale in a transaction of its own, so that one cannot sink the others.
fn one_by_one(
    tickets: &mut [Sale],
    mut attempt: impl FnMut(&mut [Sale]) -> Attempt,
) -> Vec<Result<Outcome, Failure>> {
    tickets
        .chunks_mut(1)
        .map(|one| {
            // A copy of the same request committed by another writer meanwhile: the next
            // attempt finds it and returns its ticket.
            let mut result = attempt(one);
            for _ in 0..3 {
                match &result {
                    Err(e) if e.is_duplicate() => result = attempt(one),
                    _ => break,
                }
            }
            match result {
                Ok(mut outcomes) => outcomes.pop().expect("one outcome"),
                Err(e) => Err(e),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::schema::{games, principals, rule_sets};
    use diesel::connection::{Instrumentation, InstrumentationEvent};
    use diesel::prelude::*;
    use std::collections::HashSet;
    use std::sync::Mutex;

    /// The SQL texts a connection runs, and those it keeps prepared.
    #[derive(Default)]
    struct Statements {
        run: Vec<String>,
        kept: Vec<String>,
    }

    struct Watch(Arc<Mutex<Statements>>);

    impl Instrumentation for Watch {
        fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
            let mut seen = self.0.lock().unwrap();
            match event {
                InstrumentationEvent::StartQuery { query, .. } => {
                    let text = query.to_string();
                    let sql = text.split(" -- binds:").next().unwrap_or_default();
                    seen.run.push(sql.to_string());
                }
                InstrumentationEvent::CacheQuery { sql, .. } => seen.kept.push(sql.to_string()),
                _ => {}
            }
        }
    }

    /// Plain sales from several writers, as the writer's batches hold them.
    fn sales(batch: usize, count: usize) -> Vec<Sale> {
        let rules = keno_core::RuleSet::act_1992();
        (0..count)
            .map(|i| {
                let writer = crate::auth::Principal {
                    id: format!("w{i}"),
                    role: crate::auth::Role::Writer,
                    name: format!("Writer {i}"),
                    site: Some("site".into()),
                    terminal: Some(format!("t{i}")),
                    session: None,
                };
                let request: super::super::sale::SaleRequest =
                    serde_json::from_value(serde_json::json!({
                        "request_id": format!("r-{batch}-{i}"),
                        "bet": {"type": "standard", "spots": [1, 2, 3, 4]},
                        "amount_per_way_cents": 100,
                        "games": 1,
                    }))
                    .unwrap();
                let selling = super::super::sale::Selling {
                    rules: &rules,
                    rule_set_hash: "ab12",
                    special3_digest: None,
                    limits: keno_core::LiabilityLimits::default(),
                };
                // Two writers at each terminal: a batch numbers several tickets of one.
                let prepared = super::super::sale::prepare(
                    selling,
                    (&writer, &request),
                    &Default::default(),
                    "site".into(),
                    format!("t{}", i % 2),
                )
                .unwrap();
                prepared
                    .into_sale(Vec::new(), format!("digest-{batch}-{i}"))
                    .0
            })
            .collect()
    }

    /// Every statement of a batch on SQLite is prepared once and kept: the tickets' and the
    /// trail's inserts and the trail's head were parsed again at every sale (issue 37).
    #[test]
    fn an_sqlite_batch_parses_no_statement_twice() {
        let test = keno_testkit::TestDb::new(keno_testkit::Backend::Sqlite).unwrap();
        parses_no_statement_twice(&test.url);
    }

    /// The same on PostgreSQL, where each is also planned.
    #[test]
    fn a_postgresql_batch_parses_no_statement_twice() {
        let Some(test) = keno_testkit::TestDb::new(keno_testkit::Backend::Postgres) else {
            return;
        };
        parses_no_statement_twice(&test.url);
    }

    /// Three batches of four sales, two at each of two terminals, committed on a new database
    /// at `url`: their outcomes, and the statements run.
    fn three_batches(url: &str) -> (Vec<Vec<Result<Outcome, Failure>>>, Statements) {
        let db = Db::open(url, 2).unwrap();
        let mut conn = db.conn().unwrap();
        seed(&mut conn);
        let seen = Arc::new(Mutex::new(Statements::default()));
        conn.set_instrumentation(Watch(seen.clone()));
        let mut kept = Some(WriterConn::Pooled(conn));
        let faults = crate::faults::FaultDelays::default();
        let outcomes = (0..3)
            .map(|batch| {
                let mut sales = sales(batch, 4);
                commit_batch(
                    &db,
                    &mut kept,
                    &mut sales,
                    (&faults, ShiftRule::NotRequired),
                )
            })
            .collect();
        drop(kept);
        let seen = std::mem::take(&mut *seen.lock().unwrap());
        (outcomes, seen)
    }

    /// The rule set, the writers and an open game.
    fn seed(conn: &mut crate::db::DbConnection) {
        let now = now_micros();
        diesel::insert_into(rule_sets::table)
            .values((
                rule_sets::hash.eq("ab12"),
                rule_sets::name.eq("the Act's"),
                rule_sets::body.eq(""),
                rule_sets::created_at.eq(now),
            ))
            .execute(conn)
            .unwrap();
        for i in 0..4 {
            diesel::insert_into(principals::table)
                .values((
                    principals::id.eq(format!("w{i}")),
                    principals::role.eq(crate::auth::Role::Writer.as_str()),
                    principals::name.eq(format!("Writer {i}")),
                    principals::token_hash.eq(format!("token {i}")),
                    principals::created_at.eq(now),
                ))
                .execute(conn)
                .unwrap();
        }
        diesel::insert_into(games::table)
            .values((
                games::number.eq(1),
                games::keno_day.eq("2026-11-28"),
                games::state.eq(keno_core::GameState::Open.as_str()),
                games::source.eq(keno_core::DrawSource::Rng.as_str()),
                games::rule_set.eq("ab12"),
                games::opened_at.eq(now),
                games::closes_at.eq(now + 600_000_000),
                games::draw_mode.eq(keno_core::DrawMode::Rng.as_str()),
            ))
            .execute(conn)
            .unwrap();
    }

    /// Each terminal numbers its tickets 1, 2, 3, ... in the order sold, several in a batch
    /// and the first making the terminal's row.
    fn numbers_each_terminal_in_order(outcomes: &[Vec<Result<Outcome, Failure>>]) {
        let mut numbers: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
        for outcome in outcomes.iter().flatten() {
            let Ok(Outcome::Sold(t, _)) = outcome else {
                panic!("not sold: {:?}", outcome.as_ref().err());
            };
            numbers
                .entry(t.terminal.clone())
                .or_default()
                .push(t.ticket_number);
        }
        let in_order: Vec<i64> = (1..=6).collect();
        assert_eq!(numbers.len(), 2);
        assert!(numbers.values().all(|n| *n == in_order), "{numbers:?}");
    }

    /// On PostgreSQL a batch of plain sales is six round trips: BEGIN, the open game, the
    /// terminals' numbers with the tickets (two until issue 37), the trail's chain, the
    /// trail's entries with its head, COMMIT.
    #[test]
    fn a_postgresql_batch_numbers_and_inserts_its_tickets_in_one_round_trip() {
        let Some(test) = keno_testkit::TestDb::new(keno_testkit::Backend::Postgres) else {
            return;
        };
        let (outcomes, seen) = three_batches(&test.url);
        numbers_each_terminal_in_order(&outcomes);
        assert_eq!(seen.run.len(), 3 * 6, "{:#?}", seen.run);
    }

    #[test]
    fn an_sqlite_batch_numbers_each_terminal_in_order() {
        let test = keno_testkit::TestDb::new(keno_testkit::Backend::Sqlite).unwrap();
        numbers_each_terminal_in_order(&three_batches(&test.url).0);
    }

    fn parses_no_statement_twice(url: &str) {
        let (outcomes, seen) = three_batches(url);
        assert!(outcomes
            .iter()
            .flatten()
            .all(|o| matches!(o, Ok(Outcome::Sold(..)))));
        let statement = |sql: &&String| {
            !["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"]
                .iter()
                .any(|word| sql.trim_start().to_uppercase().starts_with(word))
        };
        let run: Vec<&String> = seen.run.iter().filter(statement).collect();
        // diesel quotes its names (`tickets`); the fixed texts do not. PostgreSQL's trail
        // append is an insert within a `WITH`.
        let inserts = |table: &str| {
            run.iter()
                .any(|sql| sql.contains("INSERT INTO") && sql.contains(table))
        };
        assert!(inserts("tickets") && inserts("audit_log"));
        let parsed_each_time: HashSet<&&String> =
            run.iter().filter(|sql| !seen.kept.contains(sql)).collect();
        assert!(
            parsed_each_time.is_empty(),
            "parsed at each call: {parsed_each_time:#?}"
        );
        let mut once = seen.kept.clone();
        once.sort();
        once.dedup();
        assert_eq!(
            once.len(),
            seen.kept.len(),
            "a statement was prepared twice"
        );
    }

    /// A lone terminal's sales, one after the other, never wait; several terminals' do, while
    /// they keep coming.
    #[test]
    fn only_sales_from_several_terminals_at_once_make_the_writer_busy() {
        let now = Instant::now();
        let ago = |ms| now - Duration::from_millis(ms);
        assert!(!busy(None, now));
        assert!(!busy(Some((ago(1), 1)), now), "one terminal's next sale");
        assert!(busy(Some((ago(1), 2)), now));
        assert!(busy(Some((ago(1), 40)), now));
        assert!(!busy(Some((ago(50), 40)), now), "a quiet moment since");
    }

    /// A busy writer's small batch takes the sales that arrive while it waits; a quiet writer,
    /// or a batch already large, does not wait at all. The wait is the test's: it sends sales.
    #[test]
    fn a_busy_writer_gathers_a_small_batch_and_a_quiet_one_does_not() {
        let (queue, mut jobs) = mpsc::channel(QUEUE);
        let never = None::<fn()>;
        queue.try_send(0).unwrap();
        assert_eq!(gather(&mut jobs, 99, never), vec![99, 0]);

        let arrive = |from: usize| {
            let queue = queue.clone();
            move || (from..from + 3).for_each(|i| queue.try_send(i).unwrap())
        };
        queue.try_send(1).unwrap();
        assert_eq!(gather(&mut jobs, 99, Some(arrive(2))), vec![99, 1, 2, 3, 4]);

        for i in 0..GATHERED {
            queue.try_send(i).unwrap();
        }
        let waited = std::cell::Cell::new(false);
        let batch = gather(&mut jobs, 99, Some(|| waited.set(true)));
        assert_eq!(batch.len(), GATHERED + 1);
        assert!(!waited.get(), "a large batch waited");
    }
}
