//! The invariants of a run, read from its PostgreSQL database after the fact: shared by the
//! fault harness (`tests/faults.rs`), which asserts them, and the soak run (`loadgen --soak`),
//! which prints them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::process::Command;

use crate::Session;

/// One invariant and, when it does not hold, why.
#[derive(Debug)]
pub struct Check {
    pub name: &'static str,
    pub failure: Option<String>,
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            None => write!(f, "invariant holds: {}", self.name),
            Some(why) => write!(f, "INVARIANT BROKEN: {}: {why}", self.name),
        }
    }
}

fn check(name: &'static str, holds: bool, why: impl FnOnce() -> String) -> Check {
    Check {
        name,
        failure: (!holds).then(why),
    }
}

/// Checks every invariant of the database `db` is on; `server_bin` runs `audit verify` on it.
/// `sold` are the serials answered 201 to the clients; `seen` the numbers of a game read before
/// a fault.
pub fn check_all(
    db: &Session,
    server_bin: &Path,
    sold: &[String],
    seen: &BTreeMap<i64, Vec<i64>>,
) -> Vec<Check> {
    let mut checks = sold_once(db, sold);
    let (drawn, twice) = drawn_once(db, seen);
    checks.push(drawn);
    checks.push(paid_once(db, &twice));
    checks.push(money_per_game(db));
    checks.push(verified(db, server_bin));
    checks
}

/// No committed ticket lost, none sold twice for one request.
fn sold_once(db: &Session, sold: &[String]) -> Vec<Check> {
    let query = |sql: &str| db.i64(sql);
    let mut checks = Vec::new();
    let missing = if sold.is_empty() {
        0
    } else {
        let mut found = 0;
        for chunk in sold.chunks(1000) {
            let list = chunk
                .iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(",");
            found += query(&format!(
                "SELECT COUNT(*) AS n FROM tickets WHERE serial IN ({list})"
            ));
        }
        sold.len() as i64 - found
    };
    checks.push(check(
        "no ticket answered 201 is lost",
        missing == 0,
        || format!("{missing} of {} missing", sold.len()),
    ));
    let doubled = query(
        "SELECT COUNT(*) AS n FROM (SELECT principal_id, request_id FROM tickets \
         GROUP BY principal_id, request_id HAVING COUNT(*) > 1) d",
    );
    checks.push(check("no request sold twice", doubled == 0, || {
        format!("{doubled} requests with two tickets")
    }));
    checks
}

/// Each game drawn once, with one set of numbers; also the kinds of the trail entered twice
/// for one subject (a payment among them is the next check's).
fn drawn_once(db: &Session, seen: &BTreeMap<i64, Vec<i64>>) -> (Check, Vec<String>) {
    let query = |sql: &str| db.i64(sql);
    let text = |sql: &str| db.text(sql);
    let bad_draws = query(
        "SELECT COUNT(*) AS n FROM (SELECT game FROM drawn_numbers GROUP BY game \
         HAVING COUNT(*) <> COUNT(DISTINCT number) OR MAX(position) <> COUNT(*)) d",
    );
    let short = query(
        "SELECT COUNT(*) AS n FROM games g WHERE g.state IN ('drawn', 'settled') AND \
         (SELECT COUNT(*) FROM drawn_numbers d WHERE d.game = g.number) <> 20",
    );
    let mut twice = Vec::new();
    for kind in ["game_closed", "game_drawn", "game_settled", "ticket_paid"] {
        let n = query(&format!(
            "SELECT COUNT(*) AS n FROM (SELECT subject FROM audit_log WHERE kind = '{kind}' \
             GROUP BY subject HAVING COUNT(*) > 1) d"
        ));
        if n > 0 {
            twice.push(format!("{kind} twice for {n} subjects"));
        }
    }
    let positions_twice = query(
        "SELECT COUNT(*) AS n FROM (SELECT subject, payload::json->>'position' FROM audit_log \
         WHERE kind = 'number_drawn' GROUP BY 1, 2 HAVING COUNT(*) > 1) d",
    );
    let mut changed = Vec::new();
    for (game, before) in seen {
        let after: Vec<i64> = text(&format!(
            "SELECT COALESCE(string_agg(number::text, ',' ORDER BY position), '') AS s \
             FROM drawn_numbers WHERE game = {game}"
        ))
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("a number"))
        .collect();
        if !after.starts_with(before) {
            changed.push(format!("game {game}: {before:?} shown, {after:?} recorded"));
        }
    }
    let drawn = check(
        "no game drawn twice or with different numbers",
        bad_draws == 0
            && short == 0
            && twice.is_empty()
            && positions_twice == 0
            && changed.is_empty(),
        || {
            format!(
                "{bad_draws} games with repeated or skipped positions, {short} drawn games \
                 without 20 numbers, {positions_twice} positions drawn twice, {twice:?}, {changed:?}"
            )
        },
    );
    (drawn, twice)
}

/// Paid once, and what it won.
fn paid_once(db: &Session, twice: &[String]) -> Check {
    let wrong_pay = db.i64(
        "SELECT COUNT(*) AS n FROM tickets t WHERE t.paid_at IS NOT NULL AND t.paid_cents <> \
         (SELECT COALESCE(SUM(prize_cents), 0) FROM ticket_results r WHERE r.serial = t.serial)",
    );
    check(
        "no ticket paid twice or other than its prizes",
        wrong_pay == 0 && !twice.iter().any(|t| t.starts_with("ticket_paid")),
        || format!("{wrong_pay} tickets paid other than their prizes"),
    )
}

/// Money per settled game: the settlement's total is its tickets' prizes and refunds are
/// their games'; what is left of the stakes is the house's result, printed (stakes =
/// refunds + prizes + house holds by that definition: what can fail is the two checks).
fn money_per_game(db: &Session) -> Check {
    let query = |sql: &str| db.i64(sql);
    let text = |sql: &str| db.text(sql);
    let games: Vec<i64> = text(
        "SELECT COALESCE(string_agg(number::text, ','), '') AS s FROM games \
         WHERE state = 'settled'",
    )
    .split(',')
    .filter(|s| !s.is_empty())
    .map(|s| s.parse().expect("a game number"))
    .collect();
    let mut unbalanced = Vec::new();
    let (mut stakes_all, mut refunds_all, mut prizes_all) = (0, 0, 0);
    for g in &games {
        // A ticket's stake per game: its price spread evenly over the games it plays (Keno To
        // Go), the remainder to its first game.
        let stakes = query(&format!(
            "SELECT COALESCE(SUM(total_cents / games + CASE WHEN first_game = {g} \
             THEN total_cents % games ELSE 0 END), 0)::bigint AS n FROM tickets \
             WHERE first_game <= {g} AND last_game >= {g}"
        ));
        let refunds = query(&format!(
            "SELECT COALESCE(SUM(refund_cents), 0)::bigint AS n FROM ticket_refunds WHERE game = {g}"
        ));
        let prizes = query(&format!(
            "SELECT COALESCE(SUM(prize_cents), 0)::bigint AS n FROM ticket_results WHERE game = {g}"
        ));
        let settled = query(&format!(
            "SELECT total_prizes_cents AS n FROM game_settlements WHERE game = {g}"
        ));
        if prizes != settled {
            unbalanced.push(format!(
                "game {g}: settlement total {settled}, tickets' prizes {prizes}"
            ));
        }
        stakes_all += stakes;
        refunds_all += refunds;
        prizes_all += prizes;
    }
    // A refund is a cancelled ticket's, game by game, and no more than its stake.
    let refunds_off = query(
        "SELECT COUNT(*) AS n FROM tickets t WHERE t.refund_cents <> \
         (SELECT COALESCE(SUM(refund_cents), 0) FROM ticket_refunds r WHERE r.serial = t.serial) \
         OR t.refund_cents > t.total_cents",
    );
    let house = stakes_all - refunds_all - prizes_all;
    let accounted = check(
        "money accounted per game (its settlement total is its tickets' prizes; a refund is its games' refunds)",
        unbalanced.is_empty() && refunds_off == 0,
        || format!("{unbalanced:?}; {refunds_off} tickets whose refund is not their games'"),
    );
    println!(
        "money over {} settled games: stakes {stakes_all} = refunds {refunds_all} + prizes \
         {prizes_all} + house {house} (cents)",
        games.len()
    );
    accounted
}

/// Every settled ticket settled again from the record; the audit trail unbroken.
fn verified(db: &Session, server_bin: &Path) -> Check {
    let out = Command::new(server_bin)
        .args(["audit", "verify", "--database-url", db.url()])
        .output()
        .expect("keno-server audit verify runs");
    check(
        "every settled ticket's prizes equal a recomputation (audit verify)",
        out.status.success(),
        || {
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        },
    )
}
