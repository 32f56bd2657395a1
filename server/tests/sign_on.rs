//! Sign-on that cannot be abused (issue 31): each try counted before its secret is checked, a
//! TOTP code good once also at the same moment, no PIN checked without a terminal's
//! credential, failures that lock a person only where they were tried, an address's allowance
//! taken before the check and never charged to a venue's registered terminals, a lock cleared
//! by `staff enable`, unknown IDs tallied rather than entered one by one, and the checks
//! (argon2id) behind a few turns with a bounded queue. On SQLite and PostgreSQL, over real
//! HTTP, tries at once from real threads.

use std::process::Command;
use std::sync::Barrier;

use keno_testkit::{on_both_backends, sale, server_bin, Server, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    forty_wrong_pins_at_once_judge_at_most_the_lock_out_count,
    one_totp_code_signs_on_and_approves_once_under_concurrency,
    without_a_terminal_a_pin_is_refused_whatever_it_is,
    an_outsider_locks_no_one_out_and_a_lock_tells_no_one_who_exists,
    an_address_allowance_is_taken_before_the_check_and_never_blocks_a_terminal,
    staff_enable_clears_a_lock,
    unknown_ids_are_tallied_not_entered_one_by_one,
    checks_wait_for_a_few_turns_in_a_bounded_queue,
);

const SITE: &str = "735624";

fn code(answer: &(u16, Value)) -> (u16, Option<&str>) {
    (answer.0, answer.1["error"].as_str())
}

fn count(db: &TestDb, kind: &str) -> i64 {
    db.query_i64(&format!(
        "SELECT COUNT(*) AS n FROM audit_log WHERE kind = '{kind}'"
    ))
}

/// Runs `n` calls of `call` at once (released together by a barrier); their answers.
fn at_once<F>(n: usize, call: F) -> Vec<(u16, Value)>
where
    F: Fn(usize) -> (u16, Value) + Sync,
{
    let barrier = Barrier::new(n);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (barrier, call) = (&barrier, &call);
                scope.spawn(move || {
                    barrier.wait();
                    call(i)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// How many answers have each (status, code).
fn tally(answers: &[(u16, Value)], status: u16, error: &str) -> usize {
    answers
        .iter()
        .filter(|a| code(a) == (status, Some(error)))
        .count()
}

/// A sign-on from `address` (the server trusts X-Forwarded-For), at the terminal of
/// `credential` if given.
fn sign_on_from(s: &Server, address: &str, credential: Option<&str>, body: Value) -> (u16, Value) {
    let auth = credential.map(|c| format!("Bearer {c}"));
    let mut headers = vec![("X-Forwarded-For", address)];
    if let Some(auth) = &auth {
        headers.push(("Authorization", auth.as_str()));
    }
    s.send("POST", "/api/v1/sessions", &headers, Some(body))
}

fn forty_wrong_pins_at_once_judge_at_most_the_lock_out_count(db: TestDb) {
    let terminal = db.terminal(SITE, "03");
    let julie = db.staff("writer", "JULIE");
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--sign-on-failures", "5", "--sign-on-queue", "64"]);
    let s = Server::start(&db, &args);

    let wrong = json!({"staff_id": julie.staff_id, "pin": "0000"});
    let answers = at_once(40, |_| s.sign_on_with(Some(&terminal), wrong.clone()));
    let failed = tally(&answers, 401, "sign_on_failed");
    let locked = tally(&answers, 423, "staff_locked");
    let under_way = tally(&answers, 429, "too_many_requests");
    assert_eq!(failed + locked + under_way, 40, "{answers:?}");
    assert!(
        failed <= 4,
        "at most four judged and refused, the fifth locking: {failed} were"
    );
    assert!(
        under_way >= 30,
        "the tries past the five under way are refused unchecked"
    );
    assert!(
        count(&db, "sign_on_failed") <= 5,
        "only the tries judged enter the trail"
    );
    assert_eq!(
        code(&s.sign_on(Some(&terminal), &julie)),
        (423, Some("staff_locked")),
        "the right PIN after them: locked"
    );
}

fn one_totp_code_signs_on_and_approves_once_under_concurrency(db: TestDb) {
    let terminal = db.terminal(SITE, "03");
    let julie = db.staff("writer", "JULIE");
    let ann = db.staff("supervisor", "ANN");
    let s = Server::start(&db, MANUAL_CLOCK);

    // Eight sign-ons with one code at once: one session.
    let body = ann.sign_on_body();
    let answers = at_once(8, |_| s.sign_on_with(None, body.clone()));
    assert_eq!(
        answers.iter().filter(|a| a.0 == 201).count(),
        1,
        "{answers:?}"
    );
    // The others refused: judged and failed (the code spent), or, past the five tries the
    // lock-out allows in a row, refused unchecked.
    let refused = tally(&answers, 401, "sign_on_failed")
        + tally(&answers, 423, "staff_locked")
        + tally(&answers, 429, "too_many_requests");
    assert_eq!(refused, 7, "{answers:?}");

    // Five approvals at a counter with one code at once: one grant.
    let writer = s.session(Some(&terminal), &julie);
    let ticket = s.sell(
        &writer,
        sale(
            "t1",
            json!({"type": "standard", "spots": [1, 2]}),
            "standard",
            100,
            1,
        ),
    );
    let supervisor = ann.sign_on_body();
    let ask = json!({"action": "cancel", "serial": ticket["serial"], "supervisor": supervisor,
        "reason": "one code, five approvals"});
    let answers = at_once(5, |_| s.post(&writer, "/api/v1/overrides", ask.clone()));
    assert_eq!(
        answers.iter().filter(|a| a.0 == 201).count(),
        1,
        "{answers:?}"
    );
    assert_eq!(count(&db, "override_granted"), 1);
}

fn without_a_terminal_a_pin_is_refused_whatever_it_is(db: TestDb) {
    let julie = db.staff("writer", "JULIE");
    let s = Server::start(&db, MANUAL_CLOCK);
    let right = json!({"staff_id": julie.staff_id, "pin": julie.secret});
    let wrong = json!({"staff_id": julie.staff_id, "pin": "0000"});
    let unknown = json!({"staff_id": "999999", "pin": "1234"});
    for body in [right, wrong, unknown] {
        assert_eq!(
            code(&s.sign_on_with(None, body)),
            (401, Some("terminal_not_registered"))
        );
    }
    assert_eq!(count(&db, "sign_on_failed"), 0, "no PIN was checked");
}

fn an_outsider_locks_no_one_out_and_a_lock_tells_no_one_who_exists(db: TestDb) {
    let counter_3 = db.terminal(SITE, "03");
    let counter_4 = db.terminal(SITE, "04");
    let julie = db.staff("writer", "JULIE");
    let ann = db.staff("supervisor", "ANN");
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--sign-on-failures", "3", "--trust-forwarded-for"]);
    let s = Server::start(&db, &args);
    let outsider = "203.0.113.9";

    // The outsider guesses ANN's password: locked, but only where the outsider is.
    let guess = json!({"staff_id": ann.staff_id, "password": "not her password", "totp": "123456"});
    let answers: Vec<_> = (0..3)
        .map(|_| sign_on_from(&s, outsider, None, guess.clone()))
        .collect();
    assert_eq!(
        code(&answers[2]),
        (423, Some("staff_locked")),
        "{answers:?}"
    );
    assert_eq!(
        code(&sign_on_from(&s, outsider, None, ann.sign_on_body())),
        (423, Some("staff_locked"))
    );
    assert_eq!(
        sign_on_from(&s, "198.51.100.4", None, ann.sign_on_body()).0,
        201,
        "ANN at her own console is not locked"
    );

    // An ID that does not exist locks the same way: a lock says nothing of who exists.
    let nobody = json!({"staff_id": "424242", "password": "anything at all", "totp": "123456"});
    let answers: Vec<_> = (0..4)
        .map(|_| sign_on_from(&s, outsider, None, nobody.clone()))
        .collect();
    assert_eq!(code(&answers[1]), (401, Some("sign_on_failed")));
    assert_eq!(
        code(&answers[2]),
        (423, Some("staff_locked")),
        "{answers:?}"
    );
    assert_eq!(code(&answers[3]), (423, Some("staff_locked")));

    // A writer locked at one counter signs on at the next.
    let wrong = json!({"staff_id": julie.staff_id, "pin": "0000"});
    for _ in 0..3 {
        s.sign_on_with(Some(&counter_3), wrong.clone());
    }
    assert_eq!(
        code(&s.sign_on(Some(&counter_3), &julie)),
        (423, Some("staff_locked"))
    );
    assert_eq!(s.sign_on(Some(&counter_4), &julie).0, 201);
}

fn an_address_allowance_is_taken_before_the_check_and_never_blocks_a_terminal(db: TestDb) {
    let terminal = db.terminal(SITE, "03");
    let julie = db.staff("writer", "JULIE");
    let ann = db.staff("supervisor", "ANN");
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend([
        "--trust-forwarded-for",
        "--auth-failure-burst",
        "3",
        "--auth-failure-rate",
        "1",
        "--sign-on-failures",
        "100",
    ]);
    let s = Server::start(&db, &args);
    let venue = "198.51.100.7";

    // Ten tries at once from one address: three judged, the rest refused unchecked.
    let guess = json!({"staff_id": ann.staff_id, "password": "not her password", "totp": "123456"});
    let answers = at_once(10, |_| sign_on_from(&s, venue, None, guess.clone()));
    assert_eq!(tally(&answers, 401, "sign_on_failed"), 3, "{answers:?}");
    assert_eq!(tally(&answers, 429, "too_many_auth_failures"), 7);
    assert_eq!(count(&db, "sign_on_failed"), 3);

    // The address has no try left, yet the venue's registered terminal signs its writer on.
    assert_eq!(
        code(&sign_on_from(&s, venue, None, ann.sign_on_body())),
        (429, Some("too_many_auth_failures"))
    );
    let (status, signed) = sign_on_from(&s, venue, Some(&terminal), julie.sign_on_body());
    assert_eq!(status, 201, "{signed}");
}

fn staff_enable_clears_a_lock(db: TestDb) {
    let terminal = db.terminal(SITE, "03");
    let julie = db.staff("writer", "JULIE");
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--sign-on-failures", "2"]);
    let s = Server::start(&db, &args);
    let wrong = json!({"staff_id": julie.staff_id, "pin": "0000"});
    for _ in 0..2 {
        s.sign_on_with(Some(&terminal), wrong.clone());
    }
    assert_eq!(
        code(&s.sign_on(Some(&terminal), &julie)),
        (423, Some("staff_locked"))
    );
    let out = Command::new(server_bin())
        .args([
            "staff",
            "enable",
            &julie.staff_id,
            "--reason",
            "locked out at the counter",
        ])
        .args(["--database-url", &db.url])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.sign_on(Some(&terminal), &julie).0, 201);
    // Enabling someone neither disabled nor locked changes nothing.
    let again = Command::new(server_bin())
        .args(["staff", "enable", &julie.staff_id, "--reason", "again"])
        .args(["--database-url", &db.url])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already enabled"));
}

fn unknown_ids_are_tallied_not_entered_one_by_one(db: TestDb) {
    let terminal = db.terminal(SITE, "03");
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--sign-on-tally-interval", "1", "--trust-forwarded-for"]);
    let s = Server::start(&db, &args);
    for i in 0..6 {
        let body = json!({"staff_id": format!("9000{i}"), "pin": "1234"});
        assert_eq!(
            code(&s.sign_on_with(Some(&terminal), body)),
            (401, Some("sign_on_failed"))
        );
    }
    for i in 0..2 {
        let body = json!({"staff_id": format!("8000{i}"), "password": "a guess of twelve", "totp": "123456"});
        sign_on_from(&s, "203.0.113.9", None, body);
    }
    assert_eq!(count(&db, "sign_on_failed"), 0);
    // The tallies recorded (the tries may fall in two), summed.
    let tallies = || -> Vec<Value> {
        let n = db.query_i64(
            "SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'sign_on_unknown_failures'",
        );
        (0..n)
            .map(|i| {
                let text = db.query_text(&format!(
                    "SELECT payload AS s FROM audit_log WHERE kind = 'sign_on_unknown_failures' ORDER BY seq LIMIT 1 OFFSET {i}"
                ));
                serde_json::from_str(&text).unwrap()
            })
            .collect()
    };
    let sum = |tallies: &[Value], place: Option<&str>| -> u64 {
        tallies
            .iter()
            .flat_map(|t| t["places"].as_array().unwrap().clone())
            .filter(|p| place.is_none_or(|place| p["place"] == place))
            .map(|p| p["failures"].as_u64().unwrap())
            .sum()
    };
    s.wait_for("the tallies in the trail", || sum(&tallies(), None) == 8);
    let all = tallies();
    assert_eq!(
        sum(&all, Some(&format!("terminal:{SITE}/03"))),
        6,
        "{all:?}"
    );
    assert_eq!(sum(&all, Some("address:203.0.113.9")), 2, "{all:?}");
    let day = (chrono::Local::now() - chrono::Duration::hours(10))
        .date_naive()
        .to_string();
    let out = keno_testkit::audit(&db, &["exceptions", "--day", &day]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("sign-ons failed for staff IDs that do not exist (")
            && text.contains(" from terminal 735624/03")
            && text.contains(" from address 203.0.113.9"),
        "{text}"
    );
    let verified = keno_testkit::audit(&db, &["verify"]);
    assert!(verified.status.success());
}

fn checks_wait_for_a_few_turns_in_a_bounded_queue(db: TestDb) {
    let terminal = db.terminal(SITE, "03");
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--sign-on-checks", "1", "--sign-on-queue", "2"]);
    let s = Server::start(&db, &args);
    let answers = at_once(30, |i| {
        let body = json!({"staff_id": format!("77{i:04}"), "pin": "1234"});
        s.sign_on_with(Some(&terminal), body)
    });
    let judged = tally(&answers, 401, "sign_on_failed");
    let busy = tally(&answers, 429, "too_many_requests");
    assert_eq!(judged + busy, 30, "{answers:?}");
    assert!(
        judged >= 3,
        "one checked and two waiting at least: {judged}"
    );
    assert!(busy > 0, "the rest refused at once, not queued without end");
}
