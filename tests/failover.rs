//! Database failover with nothing lost (issue 22): `keno-server serve` on a PostgreSQL primary
//! with a synchronous standby managed by pg_auto_failover (`scripts/pg-ha`, every process on
//! loopback), the primary's host killed with SIGKILL at a stage of the day, and the server left
//! to find the new primary by itself, with no restart: its pool, its LISTEN session (the event
//! relay), its leadership and its sale writer reconnect through the multi-host URL
//! (`target_session_attrs=read-write`). Then:
//!
//! - every sale and payment answered 200 or 201, before, during or after the failover, is on
//!   the new primary (a commit is acknowledged only once the standby has it);
//! - a draw goes on from its last committed number, and the numbers the displays saw stand;
//! - a settlement cut off is done once, by the leader's next term;
//! - the fault harness's invariants hold and `audit verify` passes, signed checkpoints included.
//!
//! Clients act as terminals do: a request without an answer, or answered 503, is sent again
//! with the same request id; any other answer but success (a 500 above all) fails the test.
//!
//! Each case stands up its own pair (about 7 s; a failover takes 4-5 s), two pairs at a time.
//! Needs root and Debian's pg_auto_failover packages, which the script installs: skipped with a
//! note where it cannot run, except under `CI=true`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use keno_testkit::pg_ha::{PgHa, Takeover};
use keno_testkit::{agent, invariants, subscribe_timed, try_post, Server, Session, TestDb};
use serde_json::{json, Value};

/// At most two pairs at once, whatever the test threads: each is three PostgreSQL servers and
/// a keno-server on a two-core machine.
static RUNNING: keno_testkit::AtMost = keno_testkit::AtMost::new(2);

/// One server on a primary and its standby.
struct Site {
    // Dropped first: the server stops before the pair.
    server: Server,
    /// The harness's own session on whichever node is primary, opened again after a failover.
    session: Mutex<Option<Session>>,
    db: TestDb,
    writer: String,
    supervisor: String,
    agent: ureq::Agent,
    /// Requests sent again: after no answer, and after a 503.
    unanswered: AtomicUsize,
    unavailable: AtomicUsize,
    ha: PgHa,
    _turn: keno_testkit::Turn,
}

/// A request answered with neither success nor 503, or never answered; `retried` when an
/// attempt before it went unanswered.
#[derive(Debug)]
struct Failed {
    what: String,
    retried: bool,
}

/// How the primary is killed (its port returned), and which node then takes writes.
type Kill = (fn(&PgHa) -> u16, Takeover);

/// The primary's host killed: the standby takes over.
const KILL_HOST: Kill = (PgHa::kill_primary, Takeover::Standby);

/// Only the primary's postmaster killed: its keeper restarts it, and either node may take
/// writes next.
const KILL_POSTMASTER: Kill = (PgHa::kill_primary_postmaster, Takeover::EitherNode);

/// When the primary was killed, and how long a node took to take writes after it.
struct Failover {
    killed: Instant,
    took: Duration,
}

/// A request answered with success: when its last attempt was sent and when it was answered.
struct Answered {
    body: Value,
    sent: Instant,
    at: Instant,
}

impl Site {
    /// `None` where the pair cannot be stood up (outside CI).
    fn start(reveal: &str, faults: &str) -> Option<Site> {
        let turn = RUNNING.take();
        let ha = PgHa::up()?;
        let db = TestDb::existing(&ha.url);
        let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
        let supervisor = db.principal("supervisor", "SAM", None);
        let args = [
            "--game-interval",
            "3600",
            "--reveal-interval",
            reveal,
            "--keno-day-start",
            "00:00",
            "--keno-day-end",
            "00:00",
            "--leader-lease",
            "2",
            "--pool-size",
            "8",
        ];
        let env = [("KENO_FAULT_DELAYS", faults)];
        let server = Server::start_with(&db, "127.0.0.1:0", &args, &env);
        Some(Site {
            server,
            session: Mutex::new(None),
            db,
            writer,
            supervisor,
            agent: agent(Some(Duration::from_secs(15))),
            unanswered: AtomicUsize::new(0),
            unavailable: AtomicUsize::new(0),
            ha,
            _turn: turn,
        })
    }

    /// Kills the primary's host and waits until the standby takes writes.
    fn fail_over(&self) -> Failover {
        self.fail_over_by(KILL_HOST)
    }

    /// `fail_over`, the primary killed by `kill` (which returns its port), and a node of
    /// `takeover` awaited.
    fn fail_over_by(&self, (kill, takeover): Kill) -> Failover {
        let old = kill(&self.ha);
        let killed = Instant::now();
        // A node out of recovery, writable and committing (the monitor may take a moment more
        // to settle its own view).
        let took = self.ha.wait_primary(old, takeover);
        Failover { killed, took }
    }

    /// Runs `query` on the harness's session, opening one on the primary of the moment when
    /// there is none or it was lost with its node.
    fn with_session<T>(&self, query: impl Fn(&Session) -> diesel::QueryResult<T>) -> T {
        use diesel::result::{DatabaseErrorKind, Error};
        let start = Instant::now();
        loop {
            let mut held = self.session.lock().unwrap_or_else(|p| p.into_inner());
            let why = match held.as_ref() {
                None => match Session::open(&self.db.url) {
                    Ok(session) => {
                        *held = Some(session);
                        continue;
                    }
                    Err(e) => e.to_string(),
                },
                Some(session) => match query(session) {
                    Ok(v) => return v,
                    Err(Error::DatabaseError(DatabaseErrorKind::ClosedConnection, e)) => {
                        *held = None;
                        e.message().to_string()
                    }
                    Err(e) => panic!("{e}"),
                },
            };
            drop(held);
            assert!(start.elapsed() < Duration::from_secs(60), "{why}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `SELECT ... AS n` (a bigint).
    fn q(&self, sql: &str) -> i64 {
        self.with_session(|s| s.try_i64(sql))
    }

    /// `SELECT ... AS s` (text).
    fn qt(&self, sql: &str) -> String {
        self.with_session(|s| s.try_text(sql))
    }

    fn epoch(&self) -> i64 {
        self.q("SELECT epoch AS n FROM leadership WHERE id = 1")
    }

    /// Sends `body` until it is answered with success, as a terminal does: again, with the same
    /// request, after no answer or a 503. Any other answer is a failure, returned.
    fn until_answered(&self, token: &str, path: &str, body: &Value) -> Result<Answered, Failed> {
        let url = format!("{}{path}", self.server.base);
        let start = Instant::now();
        let mut retried = false;
        loop {
            let sent = Instant::now();
            match try_post(&self.agent, &url, token, body) {
                Some((200 | 201, answer)) => {
                    return Ok(Answered {
                        body: answer,
                        sent,
                        at: Instant::now(),
                    })
                }
                None => {
                    self.unanswered.fetch_add(1, Ordering::Relaxed);
                }
                Some((503, _)) => {
                    self.unavailable.fetch_add(1, Ordering::Relaxed);
                }
                Some((status, answer)) => {
                    let what = format!("{path}: {status} {answer}");
                    return Err(Failed { what, retried });
                }
            }
            retried = true;
            if start.elapsed() > Duration::from_secs(60) {
                let what = format!("{path}: no answer in 60 s");
                return Err(Failed { what, retried });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A four-spot ticket, sold.
    fn sell(&self, token: &str, request_id: &str, i: usize) -> Result<Answered, Failed> {
        let a = (i % 40) as u8 + 1;
        let body = json!({
            "request_id": request_id,
            "bet": {"type": "standard", "spots": [a, a % 40 + 1, (a + 7) % 40 + 1, (a + 19) % 40 + 1]},
            "amount_per_way_cents": 100,
        });
        self.until_answered(token, "/api/v1/tickets", &body)
    }

    fn serial(answered: &Answered) -> String {
        answered.body["serial"]
            .as_str()
            .expect("a serial")
            .to_string()
    }

    /// Closes the open game (a supervisor's close); its number.
    fn close(&self) -> i64 {
        let game = self
            .until_answered(
                &self.supervisor,
                "/api/v1/games/current/close",
                &Value::Null,
            )
            .unwrap_or_else(|e| panic!("{e:?}"));
        game.body["number"].as_i64().expect("a game number")
    }

    /// The game's state, as the server shows it.
    fn state(&self, game: i64) -> String {
        let (_, view) = self.server.get(&format!("/api/v1/games/{game}"));
        view["state"].as_str().unwrap_or_default().to_string()
    }

    fn wait_state(&self, game: i64, state: &str) {
        self.server.wait_for(&format!("game {game} {state}"), || {
            self.state(game) == state
        });
    }

    fn drawn(&self, game: i64) -> Vec<i64> {
        let list = self.qt(&format!(
            "SELECT COALESCE(string_agg(number::text, ',' ORDER BY position), '') AS s \
             FROM drawn_numbers WHERE game = {game}"
        ));
        list.split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().expect("a number"))
            .collect()
    }

    /// How many of `serials` the database does not have.
    fn missing(&self, serials: &[String]) -> usize {
        let found: i64 = serials
            .chunks(1000)
            .map(|chunk| {
                let list = chunk.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>();
                self.q(&format!(
                    "SELECT COUNT(*) AS n FROM tickets WHERE serial IN ({})",
                    list.join(",")
                ))
            })
            .sum();
        serials.len() - found as usize
    }

    /// The fault harness's invariants, then `audit verify` against the signed checkpoints.
    fn check_invariants(&self, sold: &[String], seen: &BTreeMap<i64, Vec<i64>>) {
        self.q("SELECT 1::bigint AS n"); // a session on the new primary
        let checks = {
            let held = self.session.lock().unwrap_or_else(|p| p.into_inner());
            let session = held.as_ref().expect("opened above");
            let bin = Path::new(env!("CARGO_BIN_EXE_keno-server"));
            invariants::check_all(session, bin, sold, seen)
        };
        for check in &checks {
            eprintln!("{check}");
        }
        let failed: Vec<_> = checks.iter().filter(|c| c.failure.is_some()).collect();
        assert!(failed.is_empty(), "invariants broken: {failed:#?}");
        let key = keno_testkit::audit_public_key(&self.db.audit_key());
        let checkpoints = self.db.checkpoints();
        let verify = ["verify", "--public-key", &key, "--checkpoints"];
        let args = [&verify[..], &[checkpoints.to_str().unwrap()]].concat();
        let out = keno_testkit::audit(&self.db, &args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
    }
}

/// Seconds, as printed.
fn secs(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64())
}

/// How long after the failover began the first request sent after it succeeded.
fn resumed(answered: &[Answered], failover: &Failover) -> Duration {
    answered
        .iter()
        .filter(|a| a.sent > failover.killed)
        .map(|a| a.at - failover.killed)
        .min()
        .expect("a request succeeded after the failover")
}

/// Four terminals sell without pause while the primary's host dies: every sale answered is on
/// the new primary, each once, and sales go on by themselves once the standby takes writes.
#[test]
fn failover_during_sales() {
    if let Some(site) = Site::start("0", "") {
        sales_through_failover(&site, "failover during sales", KILL_HOST);
    }
}

/// As `failover_during_sales`, the primary's postmaster and backends killed (a crash) while
/// its keeper lives on. The keeper restarts Postgres: if the monitor saw the node down first,
/// the standby takes over and the old primary comes back as its standby; if not, the old
/// primary goes on after its crash recovery. Either way no sale answered is lost and sales go
/// on by themselves.
#[test]
fn postmaster_crash_during_sales() {
    if let Some(site) = Site::start("0", "") {
        sales_through_failover(&site, "a postmaster crash", KILL_POSTMASTER);
    }
}

/// Terminals selling through a failover by `kill`; what happened printed as `what: ...`.
fn sales_through_failover(site: &Site, what: &str, kill: Kill) {
    let (answered, failover) = sell_through(site, kill);
    let sold: Vec<String> = answered.iter().map(Site::serial).collect();
    let before = answered.iter().filter(|a| a.at < failover.killed).count();
    assert!(before > 20, "only {before} sales before the failover");
    let lost = site.missing(&sold);
    let resumed = resumed(&answered, &failover);
    eprintln!(
        "{what}: {} acknowledged ({before} before the kill), {lost} lost, resumed after {} s (a node \
         took writes after {} s); sent again {} times after no answer, {} after a 503",
        sold.len(),
        secs(resumed),
        secs(failover.took),
        site.unanswered.load(Ordering::Relaxed),
        site.unavailable.load(Ordering::Relaxed),
    );
    assert_eq!(lost, 0);
    let game = site.close();
    site.wait_state(game, "settled");
    site.check_invariants(&sold, &BTreeMap::new());
}

/// Four terminals sell without pause from 1.5 s before `kill` until a second past the first
/// sale made after it; the sales answered, and the failover. Any answer but success or 503
/// fails.
fn sell_through(site: &Site, kill: Kill) -> (Vec<Answered>, Failover) {
    let writers: Vec<String> = (0..4)
        .map(|t| {
            let terminal = format!("1{t}");
            site.db
                .principal("writer", &format!("W{t}"), Some(("735624", &terminal)))
        })
        .collect();
    let answered = Mutex::new(Vec::new());
    let failures = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    let failover = std::thread::scope(|scope| {
        for (t, writer) in writers.iter().enumerate() {
            let (answered, failures, stop) = (&answered, &failures, &stop);
            scope.spawn(move || {
                for i in 0..5000 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    match site.sell(writer, &format!("t{t}-{i}"), i + t) {
                        Ok(sale) => answered.lock().unwrap().push(sale),
                        Err(e) => {
                            failures.lock().unwrap().push(e.what);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
        std::thread::sleep(Duration::from_millis(1500));
        let failover = site.fail_over_by(kill);
        let start = Instant::now();
        let resumed = || {
            answered
                .lock()
                .unwrap()
                .iter()
                .any(|a| a.sent > failover.killed)
        };
        while !stop.load(Ordering::Relaxed) && !resumed() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "sales never resumed"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_secs(1));
        stop.store(true, Ordering::Relaxed);
        failover
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{failures:#?}");
    (answered.into_inner().unwrap(), failover)
}

/// The primary turns read-only under the server's sessions, as a primary being demoted does: a
/// sale is answered 503 (sent again, nothing was done), not 500, and once the primary takes
/// writes again the next sale goes through, with no restart.
#[test]
fn primary_turned_read_only() {
    let Some(site) = Site::start("0", "") else {
        return;
    };
    site.sell(&site.writer, "r1", 1).unwrap();
    let set = |on: &str| {
        site.with_session(|s| {
            s.execute(&format!(
                "ALTER SYSTEM SET default_transaction_read_only = {on}"
            ))
        });
        site.with_session(|s| s.execute("SELECT pg_reload_conf()"));
        // Each session reads the configuration again before its next command.
        std::thread::sleep(Duration::from_millis(500));
    };
    set("on");
    let body = json!({
        "request_id": "r2",
        "bet": {"type": "standard", "spots": [1, 2, 3]},
        "amount_per_way_cents": 100,
    });
    let url = format!("{}/api/v1/tickets", site.server.base);
    let (status, refused) = try_post(&site.agent, &url, &site.writer, &body).expect("an answer");
    assert_eq!(
        (status, refused["error"].as_str()),
        (503, Some("unavailable")),
        "{refused}"
    );
    set("off");
    let sold = site
        .until_answered(&site.writer, "/api/v1/tickets", &body)
        .unwrap();
    assert_eq!(site.missing(&[Site::serial(&sold)]), 0);
    eprintln!("a primary turned read-only: 503 to send again, then sold on the same server");
}

/// The primary's host dies mid-draw: the leader's next term goes on from the last committed
/// number, the numbers the displays saw stand, and the display's stream goes on (a `resync`,
/// then the rest of the draw and the settlement, through the LISTEN session made again).
#[test]
fn failover_mid_draw() {
    let Some(site) = Site::start("0.05", "draw=250") else {
        return;
    };
    let sold: Vec<String> = (0..20)
        .map(|i| Site::serial(&site.sell(&site.writer, &format!("k{i}"), i).unwrap()))
        .collect();
    let events = subscribe_timed(&site.server.base);
    let game = site.close();
    let old_epoch = site.epoch();
    let mut shown = BTreeMap::new();
    while shown.len() < 7 {
        let (kind, data, _) = events
            .recv_timeout(Duration::from_secs(30))
            .expect("the draw goes on");
        if kind == "number_drawn" && data["game"] == game {
            shown.insert(
                data["position"].as_i64().unwrap(),
                data["number"].as_i64().unwrap(),
            );
        }
    }
    let seen: Vec<i64> = shown.values().copied().collect();
    let failover = site.fail_over();
    let (mut resync, mut after_kill) = (false, Vec::new());
    loop {
        let (kind, data, at) = events
            .recv_timeout(Duration::from_secs(60))
            .expect("the display's stream goes on after the failover");
        resync |= kind == "resync";
        if kind == "number_drawn" && data["game"] == game {
            after_kill.push((data["position"].as_i64().unwrap(), at));
        }
        if kind == "game_settled" && data["game"] == game {
            break;
        }
    }
    assert!(resync, "the display was told to read the state again");
    let new_epoch = site.epoch();
    assert!(new_epoch > old_epoch, "leadership was taken again");
    let drawn_under = |epoch: i64| {
        site.q(&format!(
            "SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'number_drawn' AND subject = \
             '{game}' AND (payload::json->>'leader_epoch')::bigint = {epoch}"
        ))
    };
    let (old_count, new_count) = (drawn_under(old_epoch), drawn_under(new_epoch));
    assert_eq!(
        old_count + new_count,
        20,
        "every number by one term or the other"
    );
    assert!(old_count as usize >= seen.len());
    let drawn = site.drawn(game);
    assert!(drawn.starts_with(&seen), "{seen:?} shown, {drawn:?} drawn");
    let went_on = after_kill
        .iter()
        .find(|(position, _)| *position > old_count)
        .map(|(_, at)| *at - failover.killed)
        .expect("the next number reached the display");
    eprintln!(
        "failover mid-draw: {} numbers shown before the kill, {old_count} committed under epoch \
         {old_epoch}, the draw went on from number {} under epoch {new_epoch} {} s after the kill \
         (the standby took writes after {} s)",
        seen.len(),
        old_count + 1,
        secs(went_on),
        secs(failover.took)
    );
    site.check_invariants(&sold, &BTreeMap::from([(game, seen)]));
}

/// The primary's host dies inside the settlement's transaction: the leader's next term settles
/// the game once, from the same draw.
#[test]
fn failover_during_settlement() {
    let Some(site) = Site::start("0", "settlement=2000") else {
        return;
    };
    let sold: Vec<String> = (0..40)
        .map(|i| Site::serial(&site.sell(&site.writer, &format!("s{i}"), i).unwrap()))
        .collect();
    let game = site.close();
    site.wait_state(game, "drawn");
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(
        site.state(game),
        "drawn",
        "the settlement is still uncommitted"
    );
    let seen = site.drawn(game);
    let failover = site.fail_over();
    site.wait_state(game, "settled");
    eprintln!(
        "failover during settlement: game {game} settled once, {} s after the kill (the standby \
         took writes after {} s)",
        secs(failover.killed.elapsed()),
        secs(failover.took)
    );
    site.check_invariants(&sold, &BTreeMap::from([(game, seen)]));
}

/// Winning tickets paid one after the other while the primary's host dies: every payment
/// answered is on the new primary, and a payment whose answer was lost is found paid once.
#[test]
fn failover_during_payment() {
    let Some(site) = Site::start("0", "payment=300") else {
        return;
    };
    // A one-spot ticket on each number from 1 to 80: 20 of them win.
    let sold: Vec<String> = (1..=80u8)
        .map(|n| {
            let body = json!({
                "request_id": format!("p{n}"),
                "bet": {"type": "standard", "spots": [n]},
                "amount_per_way_cents": 100,
            });
            let sale = site.until_answered(&site.writer, "/api/v1/tickets", &body);
            Site::serial(&sale.unwrap())
        })
        .collect();
    let game = site.close();
    site.wait_state(game, "settled");
    let winners = site.qt(&format!(
        "SELECT string_agg(serial, ',' ORDER BY serial) AS s FROM ticket_results \
         WHERE game = {game} AND prize_cents > 0"
    ));
    let winners: Vec<&str> = winners.split(',').collect();
    let (paid, failover) = std::thread::scope(|scope| {
        let paying = scope.spawn(|| {
            winners
                .iter()
                .map(|serial| pay(&site, serial))
                .collect::<Result<Vec<_>, Failed>>()
        });
        std::thread::sleep(Duration::from_millis(800));
        let failover = site.fail_over();
        (paying.join().unwrap(), failover)
    });
    let paid = paid.unwrap_or_else(|e| panic!("{e:?}"));
    let answered: Vec<Answered> = paid.into_iter().flatten().collect();
    let list: Vec<String> = winners.iter().map(|s| format!("'{s}'")).collect();
    let unpaid = site.q(&format!(
        "SELECT COUNT(*) AS n FROM tickets WHERE serial IN ({}) AND paid_at IS NULL",
        list.join(",")
    ));
    eprintln!(
        "failover during payment: {} payments acknowledged, {} found paid after a lost answer, \
         {unpaid} lost, resumed after {} s (the standby took writes after {} s)",
        answered.len(),
        winners.len() - answered.len(),
        secs(resumed(&answered, &failover)),
        secs(failover.took)
    );
    assert_eq!(unpaid, 0, "every winner paid");
    site.check_invariants(&sold, &BTreeMap::new());
}

/// Pays a ticket as a terminal does. `None` when its payment was made by an attempt whose answer
/// was lost (the next is refused `already_paid`); `already_paid` at the first attempt fails.
fn pay(site: &Site, serial: &str) -> Result<Option<Answered>, Failed> {
    let path = format!("/api/v1/tickets/{serial}/pay");
    match site.until_answered(&site.writer, &path, &Value::Null) {
        Ok(paid) => Ok(Some(paid)),
        Err(e) if e.retried && e.what.contains("already_paid") => Ok(None),
        Err(e) => Err(e),
    }
}
