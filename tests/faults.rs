//! The fault harness: two `keno-server serve` instances on one PostgreSQL database, the leader
//! killed with SIGKILL (or stopped with SIGSTOP) at each stage of a game, and the invariants
//! checked afterwards:
//!
//! - no committed ticket is lost: every sale answered 201 is in the database, once per request;
//! - no game is drawn twice or with other numbers: the numbers seen before the fault are the
//!   first numbers of the game's 20, each position once, and only one leader wrote each;
//! - every settled ticket's prizes equal a recomputation (`keno-server audit verify`);
//! - no ticket is paid twice, and what was paid is what it won;
//! - money is conserved per game: its stakes are its refunds, its prizes and the house's
//!   result, and the settlement's prize total is the tickets' prizes.
//!
//! `KENO_FAULT_DELAYS` makes an instance pause inside a stage's transaction, so that a kill
//! lands in the middle of a commit rather than only between two. PostgreSQL only: several
//! instances need it (skipped without `KENO_TEST_POSTGRES_URL`, except under `CI=true`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use keno_testkit::{
    agent, free_port, invariants, subscribe, try_post, Backend, Server, Session, TestDb,
};
use serde_json::{json, Value};

const NAMES: [&str; 2] = ["a", "b"];

/// At most two clusters at once, whatever the test threads: each holds about 20 PostgreSQL
/// sessions, and the server allows 100 by default.
static RUNNING: keno_testkit::AtMost = keno_testkit::AtMost::new(2);

/// Two instances, `a` started first (and so the first leader).
struct Cluster {
    // Dropped first: the servers stop before their database is dropped.
    servers: [Option<Server>; 2],
    // One session for the harness's own reads (dropped before the database): a new one per
    // poll would churn through PostgreSQL's sessions.
    conn: Session,
    db: TestDb,
    ports: [u16; 2],
    args: Vec<String>,
    faults: [String; 2],
    writer: String,
    supervisor: String,
    agent: ureq::Agent,
    // Dropped last, once the servers and the database are gone.
    _turn: keno_testkit::Turn,
}

impl Cluster {
    /// `None` without PostgreSQL (outside CI).
    fn start(game_interval: &str, reveal: &str, faults: [&str; 2]) -> Option<Cluster> {
        Cluster::start_with(game_interval, reveal, faults, &[])
    }

    /// `start`, with more settings for both instances.
    fn start_with(
        game_interval: &str,
        reveal: &str,
        faults: [&str; 2],
        more: &[&str],
    ) -> Option<Cluster> {
        let turn = RUNNING.take();
        let db = TestDb::new(Backend::Postgres)?;
        let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
        let supervisor = db.principal("supervisor", "SAM", None);
        let args = [
            "--game-interval",
            game_interval,
            "--reveal-interval",
            reveal,
            "--keno-day-start",
            "00:00",
            "--keno-day-end",
            "00:00",
            "--leader-lease",
            "2",
            // Two instances per test, tests in parallel: within PostgreSQL's 100 sessions.
            "--pool-size",
            "6",
        ]
        .map(String::from)
        .to_vec();
        let args = [args, more.iter().map(|a| a.to_string()).collect()].concat();
        let conn = db.session();
        let mut cluster = Cluster {
            servers: [None, None],
            conn,
            db,
            ports: [free_port(), free_port()],
            args,
            faults: faults.map(String::from),
            writer,
            supervisor,
            agent: agent(Some(Duration::from_secs(10))),
            _turn: turn,
        };
        cluster.run(0);
        cluster.wait_leader(0);
        cluster.run(1);
        Some(cluster)
    }

    fn run(&mut self, i: usize) {
        let mut args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        args.extend(["--instance", NAMES[i]]);
        let listen = format!("127.0.0.1:{}", self.ports[i]);
        self.servers[i] = Some(Server::start_with(
            &self.db,
            &listen,
            &args,
            &[("KENO_FAULT_DELAYS", &self.faults[i])],
        ));
    }

    /// `SELECT ... AS n` (a bigint) on the harness's session.
    fn q(&self, sql: &str) -> i64 {
        self.conn.i64(sql)
    }

    /// `SELECT ... AS s` (text) on the harness's session.
    fn qt(&self, sql: &str) -> String {
        self.conn.text(sql)
    }

    fn server(&self, i: usize) -> &Server {
        self.servers[i].as_ref().expect("instance running")
    }

    fn base(&self, i: usize) -> String {
        format!("http://127.0.0.1:{}", self.ports[i])
    }

    /// The leader now: (instance, epoch).
    fn leadership(&self) -> (String, i64) {
        (
            self.qt("SELECT holder AS s FROM leadership WHERE id = 1"),
            self.q("SELECT epoch AS n FROM leadership WHERE id = 1"),
        )
    }

    fn wait_leader(&self, i: usize) -> i64 {
        let start = Instant::now();
        loop {
            let (holder, epoch) = self.leadership();
            if holder == NAMES[i] {
                return epoch;
            }
            assert!(start.elapsed() < Duration::from_secs(30), "no leader");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn kill(&mut self, i: usize) {
        self.servers[i].take().expect("instance running").kill();
    }

    /// Sends instance `i` a signal (`-9`, `-STOP`, `-CONT`) while it stays in the cluster.
    fn signal(&self, i: usize, signal: &str) {
        let pid = self.server(i).pid().to_string();
        assert!(Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success());
    }

    /// `n` four-spot tickets sold at both instances in turn, request ids `{prefix}{i}`.
    fn sell_each(&self, prefix: &str, n: usize) -> Vec<String> {
        (0..n)
            .map(|i| self.sell(i % 2, &format!("{prefix}{i}"), &spots(i)))
            .collect()
    }

    /// The numbers of `game` that the leader of `epoch` drew: how many, the first and the last
    /// position (0 and 0 for none), from the audit trail.
    fn drawn_under(&self, game: i64, epoch: i64) -> (i64, i64, i64) {
        let agg = |f: &str| {
            self.q(&format!(
                "SELECT COALESCE({f}((payload::json->>'position')::bigint), 0) AS n \
                 FROM audit_log WHERE kind = 'number_drawn' AND subject = '{game}' \
                 AND (payload::json->>'leader_epoch')::bigint = {epoch}"
            ))
        };
        (agg("COUNT"), agg("MIN"), agg("MAX"))
    }

    /// A call that may find its instance dead: `None` when nothing answered.
    fn try_post(&self, i: usize, token: &str, path: &str, body: &Value) -> Option<(u16, Value)> {
        try_post(&self.agent, &format!("{}{path}", self.base(i)), token, body)
    }

    /// Sells at instance `i`; a sale that finds its instance dead is retried at the other with
    /// the same request id, as a terminal does. Returns the serial sold.
    fn sell(&self, i: usize, request_id: &str, spots: &[u8]) -> String {
        self.sell_as(&self.writer, i, request_id, spots)
    }

    /// `sell` by the writer whose token is `writer`.
    fn sell_as(&self, writer: &str, i: usize, request_id: &str, spots: &[u8]) -> String {
        let body = json!({
            "request_id": request_id,
            "bet": {"type": "standard", "spots": spots},
            "amount_per_way_cents": 100,
        });
        for attempt in 0..40 {
            let at = (i + attempt) % 2;
            if self.servers[at].is_none() {
                continue;
            }
            match self.try_post(at, writer, "/api/v1/tickets", &body) {
                Some((201 | 200, t)) => return t["serial"].as_str().unwrap().to_string(),
                Some((status, e)) if status < 500 => panic!("sale refused: {status} {e}"),
                // Dead, or its database sessions ended under it: the other instance.
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        panic!("sale {request_id} never answered");
    }

    fn close(&self, i: usize) -> i64 {
        let (status, game) = self
            .try_post(
                i,
                &self.supervisor,
                "/api/v1/games/current/close",
                &Value::Null,
            )
            .expect("the instance answers");
        assert_eq!(status, 200, "{game}");
        game["number"].as_i64().unwrap()
    }

    fn drawn(&self, game: i64) -> Vec<i64> {
        let list = self.qt(&format!(
            "SELECT COALESCE(string_agg(number::text, ',' ORDER BY position), '') AS s \
             FROM drawn_numbers WHERE game = {game}"
        ));
        list.split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect()
    }

    fn state(&self, game: i64) -> String {
        self.qt(&format!(
            "SELECT state AS s FROM games WHERE number = {game}"
        ))
    }

    fn wait(&self, what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn wait_settled(&self, game: i64) {
        self.wait(&format!("game {game} settled"), || {
            self.state(game) == "settled"
        });
    }

    /// Every invariant of the harness, each asserted.
    fn check_invariants(&self, sold: &[String], seen: &BTreeMap<i64, Vec<i64>>) {
        let checks = invariants::check_all(
            &self.conn,
            Path::new(env!("CARGO_BIN_EXE_keno-server")),
            sold,
            seen,
        );
        for check in &checks {
            eprintln!("{check}");
        }
        let failed: Vec<_> = checks.iter().filter(|c| c.failure.is_some()).collect();
        assert!(failed.is_empty(), "invariants broken: {failed:#?}");
    }
}

fn spots(i: usize) -> Vec<u8> {
    let a = (i % 40) as u8 + 1;
    vec![a, (a % 40) + 1, ((a + 7) % 40) + 1, ((a + 19) % 40) + 1]
}

/// Sales from four terminals to both instances while the leader dies mid-commit: every sale
/// answered is kept, and a sale retried at the other instance is sold once.
#[test]
fn leader_killed_during_sales() {
    let Some(mut c) = Cluster::start("3600", "0", ["sale=40", "sale=40"]) else {
        return;
    };
    let sold = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    std::thread::scope(|scope| {
        let c = &c;
        for t in 0..4 {
            let (sold, stop) = (sold.clone(), stop.clone());
            scope.spawn(move || {
                let mut i = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) && i < 400 {
                    let serial = c.sell(t % 2, &format!("t{t}-{i}"), &spots(i + t));
                    sold.lock().unwrap().push(serial);
                    i += 1;
                }
            });
        }
        std::thread::sleep(Duration::from_millis(1500));
        // The leader dies here (SIGKILL), most likely inside a batch's 40 ms commit.
        c.signal(0, "-9");
        std::thread::sleep(Duration::from_millis(1500));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    c.kill(0);
    let epoch = c.wait_leader(1);
    assert!(epoch >= 2);
    let sold = sold.lock().unwrap().clone();
    assert!(sold.len() > 20, "only {} sales", sold.len());
    c.run(0);
    let game = c.close(0);
    c.wait_settled(game);
    eprintln!("sales answered: {}", sold.len());
    c.check_invariants(&sold, &BTreeMap::new());
}

/// The leader's clock dies while closing the game (inside the close's transaction): the
/// standby closes it, draws it and settles it, once.
#[test]
fn leader_killed_at_close() {
    let Some(mut c) = Cluster::start("4", "0", ["close=1500", ""]) else {
        return;
    };
    let game = c.q("SELECT MAX(number) AS n FROM games");
    let sold = c.sell_each("c", 10);
    let closes_at = c.q(&format!(
        "SELECT closes_at AS n FROM games WHERE number = {game}"
    ));
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros() as i64
    };
    while now() < closes_at + 600_000 {
        std::thread::sleep(Duration::from_millis(20));
    }
    // The leader is 600 ms into its 1.5 s close: nothing of it is committed yet.
    assert_eq!(c.state(game), "open");
    c.kill(0);
    c.wait_leader(1);
    c.wait_settled(game);
    c.run(0);
    c.check_invariants(&sold, &BTreeMap::new());
}

/// The leader dies after some balls, most likely inside the commit of the next one: the
/// standby continues from the last committed number (rule 10.3).
#[test]
fn leader_killed_after_k_balls() {
    let Some(mut c) = Cluster::start("3600", "0.05", ["draw=250", ""]) else {
        return;
    };
    let sold = c.sell_each("k", 20);
    // Closed at the standby: the leader hears of it through the database.
    let game = c.close(1);
    c.wait("7 balls", || c.drawn(game).len() >= 7);
    let seen = c.drawn(game);
    let (_, old_epoch) = c.leadership();
    let killed = Instant::now();
    c.kill(0);
    let new_epoch = c.wait_leader(1);
    let elected = killed.elapsed();
    let k = c.drawn(game).len();
    c.wait("the next ball", || c.drawn(game).len() > k);
    let next_ball = killed.elapsed();
    eprintln!(
        "failover after SIGKILL: new leader in {elected:?}, next ball committed in {next_ball:?} \
         (reveal interval 50 ms)"
    );
    assert!(new_epoch > old_epoch);
    c.wait_settled(game);
    // Positions up to some k by the old leader, the rest by the new one.
    let (old_count, _, old_last) = c.drawn_under(game, old_epoch);
    let (new_count, new_first, _) = c.drawn_under(game, new_epoch);
    assert_eq!(old_count + new_count, 20);
    assert_eq!(
        old_last + 1,
        new_first,
        "the new leader went on from the last number"
    );
    assert!(old_count as usize >= seen.len());
    c.run(0);
    c.check_invariants(&sold, &BTreeMap::from([(game, seen)]));
}

/// The leader dies inside the settlement's transaction: the standby settles the game once.
#[test]
fn leader_killed_during_settlement() {
    let Some(mut c) = Cluster::start("3600", "0", ["settlement=2000", ""]) else {
        return;
    };
    let sold = c.sell_each("s", 40);
    let game = c.close(0);
    c.wait("the draw", || c.state(game) == "drawn");
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(
        c.state(game),
        "drawn",
        "the settlement is still uncommitted"
    );
    let seen = c.drawn(game);
    c.kill(0);
    c.wait_leader(1);
    c.wait_settled(game);
    c.run(0);
    c.check_invariants(&sold, &BTreeMap::from([(game, seen)]));
}

/// The leader dies while paying a ticket (inside the payment's transaction): the payment
/// retried at the other instance pays it once; paying it again is refused.
#[test]
fn leader_killed_during_payment() {
    let Some(mut c) = Cluster::start("3600", "0", ["payment=1500", ""]) else {
        return;
    };
    // A one-spot ticket on each number from 1 to 80: 20 of them win.
    let sold: Vec<String> = (1..=80u8)
        .map(|n| c.sell(usize::from(n) % 2, &format!("p{n}"), &[n]))
        .collect();
    let game = c.close(1);
    c.wait_settled(game);
    let winner = c.qt(&format!(
        "SELECT MIN(serial) AS s FROM ticket_results WHERE game = {game} AND prize_cents > 0"
    ));
    let path = format!("/api/v1/tickets/{winner}/pay");
    std::thread::scope(|scope| {
        let c = &c;
        let path = &path;
        let paying = scope.spawn(move || c.try_post(0, &c.writer, path, &Value::Null));
        std::thread::sleep(Duration::from_millis(500));
        c.signal(0, "-9");
        assert!(
            paying.join().unwrap().is_none(),
            "the payment had no answer"
        );
    });
    c.kill(0);
    assert_eq!(
        c.q(&format!(
            "SELECT COUNT(*) AS n FROM tickets WHERE serial = '{winner}' AND paid_at IS NOT NULL"
        )),
        0,
        "the killed payment left nothing"
    );
    let (status, paid) = c.try_post(1, &c.writer, &path, &Value::Null).unwrap();
    assert_eq!(status, 200, "{paid}");
    let (status, again) = c.try_post(1, &c.writer, &path, &Value::Null).unwrap();
    assert_eq!(status, 409, "{again}");
    c.run(0);
    let (status, again) = c.try_post(0, &c.writer, &path, &Value::Null).unwrap();
    assert_eq!(status, 409, "{again}");
    c.check_invariants(&sold, &BTreeMap::new());
}

/// A leader stopped mid-draw (SIGSTOP) keeps its lock but not its lease: the standby ends its
/// sessions and takes over, and when the old leader wakes it writes nothing (fencing).
#[test]
fn paused_leader_is_fenced() {
    let Some(c) = Cluster::start("3600", "0.3", ["", ""]) else {
        return;
    };
    let sold = c.sell_each("f", 10);
    let game = c.close(0);
    c.wait("5 balls", || c.drawn(game).len() >= 5);
    let (_, old_epoch) = c.leadership();
    let stopped = Instant::now();
    c.signal(0, "-STOP");
    let seen = c.drawn(game);
    let new_epoch = c.wait_leader(1);
    eprintln!(
        "failover from a stopped leader (lease 2 s): new leader in {:?}",
        stopped.elapsed()
    );
    c.wait("10 balls", || c.drawn(game).len() >= 10);
    c.signal(0, "-CONT");
    c.wait_settled(game);
    // The old leader woke up mid-draw: it wrote no number after the takeover.
    let (old_count, _, old_last) = c.drawn_under(game, old_epoch);
    let (new_count, new_first, _) = c.drawn_under(game, new_epoch);
    assert_eq!(old_count + new_count, 20);
    assert!(
        old_count as usize >= seen.len(),
        "the numbers seen were the old leader's"
    );
    assert!(
        old_last < new_first,
        "the old leader drew after the takeover"
    );
    assert_eq!(
        c.leadership().0,
        "b",
        "the old leader did not take back the lead"
    );
    // It still sells (any instance sells), into the next game.
    let late = c.sell(0, "f-late", &[1, 2, 3]);
    let mut sold = sold;
    sold.push(late);
    let next = c.close(0);
    c.wait_settled(next);
    c.check_invariants(&sold, &BTreeMap::from([(game, seen)]));
}

/// Events reach the clients of every instance: a display on the standby sees the game the
/// leader draws, number by number, closed at the standby (which wakes the leader through the
/// database).
#[test]
fn events_reach_every_instance() {
    let Some(c) = Cluster::start("3600", "0.02", ["", ""]) else {
        return;
    };
    let rx = subscribe(c.server(1));
    let closed_at = Instant::now();
    let game = c.close(1);
    let mut numbers = BTreeMap::new();
    let mut seen = Vec::new();
    loop {
        let (kind, data) = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the standby's stream goes on");
        if data["game"] != game {
            continue;
        }
        if kind == "number_drawn" {
            if numbers.is_empty() {
                eprintln!(
                    "first number at the standby's display {:?} after the close",
                    closed_at.elapsed()
                );
            }
            numbers.insert(
                data["position"].as_i64().unwrap(),
                data["number"].as_i64().unwrap(),
            );
        }
        seen.push(kind.clone());
        if kind == "game_settled" {
            break;
        }
    }
    assert_eq!(seen.first().map(String::as_str), Some("game_closed"));
    assert!(seen.contains(&"game_drawn".to_string()), "{seen:?}");
    let drawn = c.drawn(game);
    assert_eq!(
        numbers.into_values().collect::<Vec<_>>(),
        drawn,
        "every number, in order"
    );
}

/// Issue 21: no row that every sale waits on. Eight terminals sell at both instances at once,
/// each instance with two sale writers holding each batch 20 ms before its commit, so appends
/// overlap: they take different chains of the audit trail, interleaved in its numbering, and
/// `audit verify` proves the whole, against the signed checkpoints too.
#[test]
fn two_instances_and_their_sale_writers_interleave_their_audit_appends() {
    let more = ["--sale-writers", "2"];
    let Some(c) = Cluster::start_with("3600", "0", ["sale=20", "sale=20"], &more) else {
        return;
    };
    let writers: Vec<String> = (0..8)
        .map(|t| {
            let terminal = format!("1{t}");
            c.db.principal("writer", &format!("W{t}"), Some(("735624", &terminal)))
        })
        .collect();
    let sold = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for (t, writer) in writers.iter().enumerate() {
            let (c, sold) = (&c, &sold);
            scope.spawn(move || {
                for i in 0..40 {
                    let serial = c.sell_as(writer, t % 2, &format!("w{t}-{i}"), &spots(i + t));
                    sold.lock().unwrap().push(serial);
                }
            });
        }
    });
    let game = c.close(0);
    c.wait_settled(game);
    let sold = sold.into_inner().unwrap();
    assert_eq!(sold.len(), 320);
    let chains = c.q("SELECT COUNT(DISTINCT chain) AS n FROM audit_log WHERE kind = 'ticket_sold'");
    assert!(chains >= 2, "sales appended on {chains} chain(s)");
    // Entries of different chains one after the other in the trail's numbering.
    let switches = c.q(
        "SELECT COUNT(*) AS n FROM (SELECT chain, LAG(chain) OVER (ORDER BY seq) AS before \
         FROM audit_log) x WHERE before IS NOT NULL AND before <> chain",
    );
    assert!(switches >= 2, "the chains never interleaved ({switches})");
    eprintln!("sales on {chains} chains, switching {switches} times");
    c.check_invariants(&sold, &BTreeMap::new());
    // A checkpoint made after the settlement folds every chain's head; verify proves each.
    let settled_at = c.q(&format!(
        "SELECT MAX(seq) AS n FROM audit_log WHERE kind = 'game_settled' AND subject = '{game}'"
    ));
    c.wait("a checkpoint after the settlement", || {
        c.q("SELECT COALESCE(MAX(seq), 0) AS n FROM audit_checkpoints") >= settled_at
    });
    let heads = c.qt("SELECT heads AS s FROM audit_checkpoints ORDER BY n DESC LIMIT 1");
    assert!(heads.split(';').count() >= 2, "{heads}");
    let key = keno_testkit::audit_public_key(&c.db.audit_key());
    let out = keno_testkit::audit(
        &c.db,
        &[
            "verify",
            "--public-key",
            &key,
            "--checkpoints",
            c.db.checkpoints().to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("chain(s)"), "{text}");
}

/// Issue 21: the sale writers on PostgreSQL insert without looking the request id up first. The
/// same sale sent to both instances at once, each holding its batch 300 ms before the commit,
/// meets the other on the unique index: one sells, the other answers with that ticket.
#[test]
fn the_same_sale_at_both_instances_at_once_sells_once() {
    let Some(c) = Cluster::start("3600", "0", ["sale=300", "sale=300"]) else {
        return;
    };
    let body = json!({
        "request_id": "both-at-once",
        "bet": {"type": "standard", "spots": [4, 5, 6]},
        "amount_per_way_cents": 100,
    });
    let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let (c, body) = (&c, &body);
                scope.spawn(move || c.try_post(i, &c.writer, "/api/v1/tickets", body))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap().expect("an answer"))
            .collect()
    });
    let mut statuses: Vec<u16> = answers.iter().map(|a| a.0).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 201], "{answers:?}");
    assert_eq!(
        answers[0].1["serial"], answers[1].1["serial"],
        "{answers:?}"
    );
    assert_eq!(
        c.q("SELECT COUNT(*) AS n FROM tickets WHERE request_id = 'both-at-once'"),
        1
    );
    let serial = answers[0].1["serial"].as_str().unwrap().to_string();
    let game = c.close(0);
    c.wait_settled(game);
    c.check_invariants(&[serial], &BTreeMap::new());
}

/// Instances started together each sign their start (issue 33's checkpoints): two signing at
/// once conflict on the checkpoint's number, and the one that loses signs again after the
/// other rather than failing to start. (Seen first as an instance that would not start,
/// `duplicate key value violates unique constraint "audit_checkpoints_pkey"`.)
#[test]
fn instances_starting_together_each_sign_their_start() {
    let _turn = RUNNING.take();
    let Some(db) = TestDb::new(Backend::Postgres) else {
        return;
    };
    let args = [
        "--keno-day-start",
        "00:00",
        "--keno-day-end",
        "00:00",
        "--pool-size",
        "4",
    ];
    for round in 0..3 {
        // Each holds its start's checkpoint uncommitted a moment: two at once must conflict.
        let held = [("KENO_FAULT_DELAYS", "checkpoint=300")];
        let servers: Vec<Server> = std::thread::scope(|s| {
            let started: Vec<_> = (0..4)
                .map(|_| s.spawn(|| Server::start_with(&db, "127.0.0.1:0", &args, &held)))
                .collect();
            started
                .into_iter()
                .map(|h| h.join().expect("every instance starts"))
                .collect()
        });
        assert_eq!(servers.len(), 4, "round {round}");
        for mut server in servers {
            assert!(server.terminate());
        }
    }
    let numbers = db.query_i64("SELECT COUNT(DISTINCT n) AS n FROM audit_checkpoints");
    let last = db.query_i64("SELECT MAX(n) AS n FROM audit_checkpoints");
    assert_eq!(
        numbers, last,
        "checkpoints numbered 1 to {last} with no gap"
    );
    let out = keno_testkit::audit(&db, &["verify"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
