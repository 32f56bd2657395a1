//! Running the room (issue 17): people sign on at registered terminals, are locked out after
//! failed sign-ons, lose their sessions to inactivity or when disabled; a writer handles only
//! their own site's tickets and pays alone only up to the payout limit, beyond which a
//! supervisor approves at that moment. On SQLite and PostgreSQL, over real HTTP, the people
//! and terminals made with the real command line.

use keno_core::rules::ACT_1992_TOML;
use keno_testkit::{on_both_backends, sale, Server, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    a_writer_signs_on_at_a_registered_terminal_and_is_locked_out_after_failures,
    sessions_end_when_idle_and_when_the_person_is_disabled,
    another_sites_ticket_needs_a_supervisors_approval_at_that_moment,
    a_payment_above_the_writers_limit_needs_a_supervisor_and_a_hand_pay,
);

const SITE: &str = "735624";
const OTHER_SITE: &str = "111111";

fn error(answer: &(u16, Value)) -> (u16, Option<&str>) {
    (answer.0, answer.1["error"].as_str())
}

fn count(db: &TestDb, kind: &str) -> i64 {
    db.query_i64(&format!(
        "SELECT COUNT(*) AS n FROM audit_log WHERE kind = '{kind}'"
    ))
}

/// The day's exceptions as text (`audit exceptions --day`): in tests Keno runs all day from
/// 10:00, so the Keno Day is the one that began at the last 10:00.
fn exceptions(db: &TestDb) -> String {
    let day = (chrono::Local::now() - chrono::Duration::hours(10))
        .date_naive()
        .to_string();
    let out = keno_testkit::audit(db, &["exceptions", "--day", &day]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn verified(db: &TestDb) {
    let out = keno_testkit::audit(db, &["verify"]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn a_writer_signs_on_at_a_registered_terminal_and_is_locked_out_after_failures(db: TestDb) {
    let terminal = db.terminal(SITE, "03");
    let julie = db.staff("writer", "JULIE");
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--sign-on-failures", "3", "--sign-on-lock", "600"]);
    let s = Server::start(&db, &args);

    // Rule 5.1: a writer signs on at a registered terminal only.
    assert_eq!(
        error(&s.sign_on(None, &julie)),
        (401, Some("terminal_not_registered"))
    );
    assert_eq!(
        error(&s.sign_on(Some("kt_not-a-credential"), &julie)),
        (401, Some("terminal_not_registered"))
    );
    // An unknown staff ID and a wrong PIN say the same.
    let stranger = json!({"staff_id": "999999", "pin": "1234"});
    assert_eq!(
        error(&s.sign_on_with(Some(&terminal), stranger)),
        (401, Some("sign_on_failed"))
    );
    let wrong = json!({"staff_id": julie.staff_id, "pin": "0000"});
    for _ in 0..2 {
        assert_eq!(
            error(&s.sign_on_with(Some(&terminal), wrong.clone())),
            (401, Some("sign_on_failed"))
        );
    }
    // The third failure in a row locks the ID; then even the right PIN is refused.
    assert_eq!(
        error(&s.sign_on_with(Some(&terminal), wrong.clone())),
        (423, Some("staff_locked"))
    );
    assert_eq!(
        error(&s.sign_on(Some(&terminal), &julie)),
        (423, Some("staff_locked"))
    );
    // A known person's failures are each in the trail; an unknown ID's are tallied
    // (server/tests/sign_on.rs).
    assert_eq!(count(&db, "sign_on_failed"), 3);
    let text = exceptions(&db);
    assert!(
        text.contains(&format!(
            "sign-on failed for staff ID {} at site {SITE} terminal 03; the ID is now locked",
            julie.staff_id
        )),
        "{text}"
    );

    // A supervisor (password and TOTP code) resets the PIN: the lock is cleared.
    let ann = db.staff("supervisor", "ANN");
    let sup = s.session(None, &ann);
    let (status, reset) = s.post(
        &sup,
        &format!("/api/v1/staff/{}/reset", julie.staff_id),
        json!({"reason": "locked out at the counter", "secret": "4821"}),
    );
    assert_eq!(status, 200, "{reset}");
    let (status, signed) = s.sign_on_with(
        Some(&terminal),
        json!({"staff_id": julie.staff_id, "pin": "4821"}),
    );
    assert_eq!(status, 201, "{signed}");
    let token = signed["token"].as_str().unwrap();
    assert!(token.starts_with("ks_"));
    assert_eq!(
        (
            signed["session"]["site"].as_str(),
            signed["session"]["terminal"].as_str()
        ),
        (Some(SITE), Some("03"))
    );
    // The session sells as the person, at the terminal signed on at, once her shift is open.
    keno_testkit::open_shift(&s.base, token);
    let ticket = s.sell(
        token,
        sale(
            "s1",
            json!({"type": "standard", "spots": [1, 2, 3]}),
            "standard",
            100,
            1,
        ),
    );
    assert_eq!(
        (
            ticket["writer"].as_str(),
            ticket["site"].as_str(),
            ticket["terminal"].as_str()
        ),
        (Some("JULIE"), Some(SITE), Some("03"))
    );
    // A terminal's credential is no bearer token for anything else.
    assert_eq!(s.get_as(&terminal, "/api/v1/principals/me").0, 401);

    // RFC 6238: a supervisor's wrong code, and a code used once already, are refused.
    let mut bad = ann.sign_on_body();
    bad["totp"] = json!(if bad["totp"] == "000000" {
        "111111"
    } else {
        "000000"
    });
    assert_eq!(
        error(&s.sign_on_with(None, bad)),
        (401, Some("sign_on_failed"))
    );
    let once = ann.sign_on_body();
    assert_eq!(s.sign_on_with(None, once.clone()).0, 201);
    assert_eq!(
        error(&s.sign_on_with(None, once)),
        (401, Some("sign_on_failed"))
    );
    // A writer's PIN without a terminal, or a password without a code: refused as malformed.
    assert_eq!(
        s.sign_on_with(
            None,
            json!({"staff_id": ann.staff_id, "password": ann.secret})
        )
        .0,
        400
    );
    verified(&db);
}

fn sessions_end_when_idle_and_when_the_person_is_disabled(db: TestDb) {
    let terminal = db.terminal(SITE, "03");
    let julie = db.staff("writer", "JULIE");
    let ann = db.staff("supervisor", "ANN");
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--session-idle", "2"]);
    let s = Server::start(&db, &args);

    let token = s.session(Some(&terminal), &julie);
    assert_eq!(s.get_as(&token, "/api/v1/sessions/current").0, 200);
    // Inactivity: the session ends, and says why.
    std::thread::sleep(std::time::Duration::from_millis(3_500));
    let ended = s.get_as(&token, "/api/v1/principals/me");
    assert_eq!(error(&ended), (401, Some("session_ended")));
    assert!(
        ended.1["message"].as_str().unwrap().contains("without use"),
        "{}",
        ended.1
    );
    assert_eq!(
        db.query_text("SELECT end_reason AS s FROM staff_sessions"),
        "inactive"
    );

    // Signing on again ends nothing else; signing on a second time replaces the first.
    let first = s.session(Some(&terminal), &julie);
    let second = s.session(Some(&terminal), &julie);
    assert_eq!(
        error(&s.get_as(&first, "/api/v1/principals/me")),
        (401, Some("session_ended"))
    );
    assert_eq!(s.get_as(&second, "/api/v1/principals/me").0, 200);

    // Disabled by a supervisor: the session ends at once, and sign-on is refused.
    let sup = s.session(None, &ann);
    let listed = s.get_as(&sup, "/api/v1/staff").1;
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["staff_id"] == julie.staff_id.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["open_sessions"], 1, "{listed}");
    let (status, _) = s.post(
        &sup,
        &format!("/api/v1/staff/{}/disable", julie.staff_id),
        json!({"reason": "left the company"}),
    );
    assert_eq!(status, 200);
    assert_eq!(
        error(&s.get_as(&second, "/api/v1/principals/me")),
        (401, Some("session_ended"))
    );
    assert_eq!(
        error(&s.sign_on(Some(&terminal), &julie)),
        (401, Some("sign_on_failed"))
    );
    // One active ID per person and role: a second JULIE writer waits until she is disabled.
    let (status, again) = s.post(
        &sup,
        "/api/v1/staff",
        json!({"name": "JULIE", "role": "writer", "reason": "rehired", "secret": "2468"}),
    );
    assert_eq!(status, 201, "{again}");
    let (status, twice) = s.post(
        &sup,
        "/api/v1/staff",
        json!({"name": "JULIE", "role": "writer", "reason": "again"}),
    );
    assert_eq!(
        (status, twice["error"].as_str()),
        (409, Some("staff_active"))
    );
    assert_eq!(
        error(&s.post(
            &sup,
            &format!("/api/v1/staff/{}/enable", julie.staff_id),
            json!({"reason": "back"})
        )),
        (409, Some("staff_active"))
    );
    // Signing off ends a session at once.
    let (status, _) = s.post(&sup, "/api/v1/sessions/current/end", Value::Null);
    assert_eq!(status, 204);
    assert_eq!(
        error(&s.get_as(&sup, "/api/v1/staff")),
        (401, Some("session_ended"))
    );
    assert_eq!(count(&db, "staff_disabled"), 1);
    verified(&db);
    // A secret swapped behind the server's back (to let someone sign on as her) is found.
    db.execute(&format!(
        "UPDATE principals SET secret_hash = (SELECT secret_hash FROM principals WHERE id = '{}') WHERE id = '{}'",
        ann.staff_id, julie.staff_id
    ));
    let out = keno_testkit::audit(&db, &["verify"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("staff {} (writer JULIE) differs", julie.staff_id)),
        "{text}"
    );
}

/// Writer JULIE at site 735624 sells; writer OMAR at site 111111 may not touch the ticket
/// until supervisor ANN approves at his counter.
fn another_sites_ticket_needs_a_supervisors_approval_at_that_moment(db: TestDb) {
    let here = db.terminal(SITE, "03");
    let there = db.terminal(OTHER_SITE, "01");
    let (julie, omar, ann) = (
        db.staff("writer", "JULIE"),
        db.staff("writer", "OMAR"),
        db.staff("supervisor", "ANN"),
    );
    let s = Server::start(&db, MANUAL_CLOCK);
    let julie_token = s.session(Some(&here), &julie);
    let omar_token = s.session(Some(&there), &omar);
    let serial = s.sell(
        &julie_token,
        sale(
            "x1",
            json!({"type": "standard", "spots": [5, 6]}),
            "standard",
            200,
            1,
        ),
    )["serial"]
        .as_str()
        .unwrap()
        .to_string();
    let cancel = format!("/api/v1/tickets/{serial}/cancel");

    assert_eq!(
        error(&s.post(&omar_token, &cancel, Value::Null)),
        (403, Some("other_site"))
    );
    assert_eq!(
        error(&s.get_as(&omar_token, &format!("/api/v1/tickets/{serial}"))),
        (403, Some("other_site"))
    );
    // The public check stays open to all.
    assert_eq!(s.get(&format!("/api/v1/tickets/{serial}/check")).0, 200);

    // ANN signs on at OMAR's counter to approve the cancellation (a wrong code first).
    let mut wrong = ann.sign_on_body();
    wrong["totp"] = json!("12345");
    let ask = |supervisor: Value| json!({"action": "cancel", "serial": serial, "supervisor": supervisor, "reason": "player bought it at the other venue"});
    assert_eq!(
        error(&s.post(&omar_token, "/api/v1/overrides", ask(wrong))),
        (401, Some("sign_on_failed"))
    );
    // A writer cannot approve: only a supervisor.
    let (status, _) = s.post(&omar_token, "/api/v1/overrides", ask(julie.sign_on_body()));
    assert_eq!(status, 403);
    let (status, granted) = s.post(&omar_token, "/api/v1/overrides", ask(ann.sign_on_body()));
    assert_eq!(status, 201, "{granted}");
    let grant = granted["grant"].as_str().unwrap();
    // Good for that action only: not to read the ticket.
    let header = [("X-Keno-Override", grant)];
    assert_eq!(
        error(&s.request(
            "GET",
            &omar_token,
            &format!("/api/v1/tickets/{serial}"),
            &header,
            None
        )),
        (403, Some("invalid_override"))
    );
    let (status, cancelled) = s.request("POST", &omar_token, &cancel, &header, None);
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["refund_cents"], 200);
    // Used once.
    assert_eq!(
        error(&s.request("POST", &omar_token, &cancel, &header, None)),
        (403, Some("invalid_override"))
    );
    // Both names are recorded with the cancellation.
    let entry = db.query_text("SELECT payload AS s FROM audit_log WHERE kind = 'override_granted'");
    assert!(
        entry.contains(&ann.staff_id) && entry.contains(&omar.staff_id),
        "{entry}"
    );
    let cancelled_entry =
        db.query_text("SELECT payload AS s FROM audit_log WHERE kind = 'ticket_cancelled'");
    assert!(
        cancelled_entry.contains(&format!("\"approved_by\":\"{}\"", ann.staff_id)),
        "{cancelled_entry}"
    );
    let text = exceptions(&db);
    assert!(
        text.contains(&format!(
            "a supervisor's approval to cancel ticket {serial} for writer OMAR"
        )) && text.contains("who: ANN"),
        "{text}"
    );
    verified(&db);
}

/// A promotion pays $5,000 on 1 spot: twenty winners are pro-rated to $2,500 each (rule 12.5),
/// above the writer's $1,999.99.
fn a_payment_above_the_writers_limit_needs_a_supervisor_and_a_hand_pay(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        ACT_1992_TOML.replace(
            "{ spots = 1, pays = { 1 = 300 } }",
            "{ spots = 1, pays = { 1 = 500000 } }",
        ),
    )
    .unwrap();
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--rules", rules.to_str().unwrap()]);
    let terminal = db.terminal(SITE, "03");
    let (julie, ann) = (db.staff("writer", "JULIE"), db.staff("supervisor", "ANN"));
    let s = Server::start(&db, &args);
    let writer = s.session(Some(&terminal), &julie);
    let sup = s.session(None, &ann);
    let serials: Vec<String> = (1..=80)
        .map(|n| {
            s.sell(
                &writer,
                sale(
                    &format!("c{n}"),
                    json!({"type": "standard", "spots": [n]}),
                    "standard",
                    100,
                    1,
                ),
            )["serial"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let game = s.close_and_settle(&sup);
    let winner = &serials[game["drawn"][0].as_u64().unwrap() as usize - 1];
    let pay = format!("/api/v1/tickets/{winner}/pay");
    let hand_pay = json!({"hand_pay": {"claimant_name": "Jo Citizen", "id_kind": "driver licence", "id_number": "ACT 123456", "cheque_number": "000417"}});

    assert_eq!(
        error(&s.post(&writer, &pay, hand_pay.clone())),
        (403, Some("approval_required"))
    );
    let ask = json!({"action": "pay", "serial": winner, "supervisor": ann.sign_on_body(), "reason": "a $2,500 prize"});
    let (status, granted) = s.post(&writer, "/api/v1/overrides", ask);
    assert_eq!(status, 201, "{granted}");
    let header = [("X-Keno-Override", granted["grant"].as_str().unwrap())];
    // A major prize is a hand-pay: refused without the claimant, and the grant stays unspent.
    assert_eq!(
        error(&s.request("POST", &writer, &pay, &header, Some(Value::Null))),
        (400, Some("hand_pay_required"))
    );
    let (status, paid) = s.request("POST", &writer, &pay, &header, Some(hand_pay));
    assert_eq!(status, 200, "{paid}");
    assert_eq!(
        (paid["paid_cents"].as_i64(), paid["method"].as_str()),
        (Some(250_000), Some("cheque"))
    );
    let t = s.get_as(&writer, &format!("/api/v1/tickets/{winner}")).1;
    assert_eq!(t["hand_pay"]["claimant_name"], "Jo Citizen", "{t}");
    assert_eq!(t["hand_pay"]["cheque_number"], "000417");
    assert_eq!(
        db.query_text(&format!(
            "SELECT approved_by AS s FROM hand_pays WHERE serial = '{winner}'"
        )),
        ann.staff_id
    );
    verified(&db);
}

/// Two instances on one PostgreSQL database: a session used at the second (and cached there)
/// ends there as soon as the person is disabled at the first, not when its cache expires.
#[test]
fn a_disabled_persons_session_ends_at_once_at_every_instance() {
    let Some(db) = TestDb::new(keno_testkit::Backend::Postgres) else {
        return;
    };
    let terminal = db.terminal(SITE, "03");
    let (julie, ann) = (db.staff("writer", "JULIE"), db.staff("supervisor", "ANN"));
    let first = Server::start(&db, MANUAL_CLOCK);
    let second = Server::start(&db, MANUAL_CLOCK);
    let token = first.session(Some(&terminal), &julie);
    assert_eq!(second.get_as(&token, "/api/v1/principals/me").0, 200);
    let sup = first.session(None, &ann);
    let path = format!("/api/v1/staff/{}/disable", julie.staff_id);
    assert_eq!(first.post(&sup, &path, json!({"reason": "left"})).0, 200);
    // Well inside the cache's ten seconds.
    let since = std::time::Instant::now();
    while second.get_as(&token, "/api/v1/principals/me").0 != 401 {
        assert!(
            since.elapsed() < std::time::Duration::from_secs(3),
            "still signed on at the second instance"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
