//! The ball-drawing device's feed, over real HTTP on SQLite and PostgreSQL (issue 6): each
//! ball committed before it is shown, bad balls refused with nothing stored, the 20th ball
//! drawing and settling the game, and a restart mid-draw that goes on from the last ball.

use keno_testkit::{on_both_backends, sale, world, Server, TestDb, BALL_DEVICE};
use serde_json::{json, Value};

on_both_backends!(
    a_device_draws_a_game_ball_by_ball,
    bad_balls_are_refused_and_change_nothing,
    rule_10_3_a_device_draw_goes_on_after_a_restart,
    fault_reports_that_cannot_be_right_are_refused_and_change_nothing,
    rule_12_2_minor_wins_in_cash_and_major_prizes_by_cheque_or_in_cash,
    rule_17_2_a_voided_ticket_takes_no_part_and_its_prizes_are_withheld,
);

fn ball(s: &Server, device: &str, game: i64, number: i64) -> (u16, Value) {
    s.post(
        device,
        &format!("/api/v1/games/{game}/balls"),
        json!({ "number": number }),
    )
}

fn close(w: &keno_testkit::World) -> i64 {
    let (status, game) = w
        .server
        .post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["source"], "ball_device");
    game["number"].as_i64().unwrap()
}

fn a_device_draws_a_game_ball_by_ball(db: TestDb) {
    let w = world(&db, BALL_DEVICE);
    let device = db.principal("device", "BALLMACHINE-1", None);
    // A 4-spot ticket on the first four balls: it catches 4 of 4 ($112).
    let t = w.server.sell(
        &w.writer,
        sale(
            "t",
            json!({"type": "standard", "spots": [7, 17, 27, 37]}),
            "standard",
            100,
            1,
        ),
    );
    let game = close(&w);
    let balls: Vec<i64> = vec![
        7, 17, 27, 37, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18,
    ];
    for (i, &n) in balls.iter().enumerate() {
        let (status, taken) = ball(&w.server, &device, game, n);
        assert_eq!(status, 201, "{taken}");
        assert_eq!(
            (taken["position"].as_u64(), taken["number"].as_i64()),
            (Some(i as u64 + 1), Some(n))
        );
        let shown = w.server.get(&format!("/api/v1/games/{game}")).1;
        assert_eq!(
            shown["drawn"].as_array().unwrap().len(),
            i + 1,
            "committed before shown"
        );
    }
    let settled = w.server.wait_settled(game);
    assert_eq!(settled["drawn"], json!(balls));
    let (_, d) = w.server.get_as(
        &w.writer,
        &format!("/api/v1/tickets/{}", t["serial"].as_str().unwrap()),
    );
    assert_eq!(d["results"][0]["ways"][0]["catch"], 4);
    assert_eq!(d["won_cents"], 11_200);
    // A 21st ball: the game is drawn.
    let (status, e) = ball(&w.server, &device, game, 19);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("game_not_drawing"))
    );
}

fn bad_balls_are_refused_and_change_nothing(db: TestDb) {
    let w = world(&db, BALL_DEVICE);
    let device = db.principal("device", "BALLMACHINE-1", None);
    let open = w.server.get("/api/v1/games/current").1["number"]
        .as_i64()
        .unwrap();
    // Not while the game is open for sale (rule 9.2), and only from a device.
    let (status, e) = ball(&w.server, &device, open, 5);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("game_not_drawing"))
    );
    let game = close(&w);
    let (status, _) = ball(&w.server, &w.writer, game, 5);
    assert_eq!(status, 403);
    for bad in [0, 81, -1, 1000] {
        let (status, e) = ball(&w.server, &device, game, bad);
        assert_eq!(
            (status, e["error"].as_str()),
            (422, Some("invalid_number")),
            "{bad}"
        );
    }
    let (status, e) = w.server.post(
        &device,
        &format!("/api/v1/games/{game}/balls"),
        json!({"number": "five"}),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_request"))
    );
    assert_eq!(ball(&w.server, &device, game, 5).0, 201);
    let (status, e) = ball(&w.server, &device, game, 5);
    assert_eq!((status, e["error"].as_str()), (409, Some("duplicate_ball")));
    let (status, e) = ball(&w.server, &device, 999_999, 6);
    assert_eq!((status, e["error"].as_str()), (404, Some("not_found")));
    assert_eq!(
        db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM drawn_numbers WHERE game = {game}"
        )),
        1
    );
    assert_eq!(
        w.server.get(&format!("/api/v1/games/{game}")).1["state"],
        "drawing"
    );
}

fn rule_10_3_a_device_draw_goes_on_after_a_restart(db: TestDb) {
    let w = world(&db, BALL_DEVICE);
    let device = db.principal("device", "BALLMACHINE-1", None);
    let game = close(&w);
    for n in 1..=7 {
        assert_eq!(ball(&w.server, &device, game, n).0, 201);
    }
    w.server.kill();
    let server = Server::start(&db, BALL_DEVICE);
    assert_eq!(
        server.get(&format!("/api/v1/games/{game}")).1["drawn"],
        json!([1, 2, 3, 4, 5, 6, 7])
    );
    for n in 8..=20 {
        assert_eq!(ball(&server, &device, game, n).0, 201);
    }
    let settled = server.wait_settled(game);
    assert_eq!(settled["drawn"], json!((1..=20).collect::<Vec<i64>>()));
}

fn fault_reports_that_cannot_be_right_are_refused_and_change_nothing(db: TestDb) {
    let w = world(&db, BALL_DEVICE);
    let device = db.principal("device", "BALLMACHINE-1", None);
    let game = close(&w);
    let next = close(&w);
    let fault = |token: &str, body: Value| {
        w.server
            .post(token, &format!("/api/v1/games/{game}/faults"), body)
    };
    let refused: Vec<(Value, &str, u16, &str)> = vec![
        (
            json!({"kind": "earthquake", "reason": "x"}),
            "device",
            400,
            "invalid_request",
        ),
        (
            json!({"kind": "broken_ball", "reason": "x"}),
            "device",
            400,
            "number_required",
        ),
        (
            json!({"kind": "broken_ball", "number": 99, "reason": "x"}),
            "device",
            422,
            "invalid_number",
        ),
        (
            json!({"kind": "stoppage", "number": 5, "reason": "x"}),
            "device",
            400,
            "invalid_request",
        ),
        (
            json!({"kind": "stoppage", "reason": "  "}),
            "device",
            400,
            "invalid_reason",
        ),
        (
            json!({"kind": "stoppage", "reason": "x", "extra": 1}),
            "device",
            400,
            "invalid_request",
        ),
        // Nothing has been drawn: nothing can fall back or break.
        (
            json!({"kind": "fall_back", "reason": "x"}),
            "device",
            409,
            "game_not_drawing",
        ),
        (
            json!({"kind": "broken_ball", "number": 5, "reason": "x"}),
            "device",
            409,
            "game_not_drawing",
        ),
        // A supervisor's spill report must say which device, none having drawn yet.
        (
            json!({"kind": "spill", "reason": "x"}),
            "supervisor",
            400,
            "device_required",
        ),
        (
            json!({"kind": "spill", "device": "nobody", "reason": "x"}),
            "supervisor",
            400,
            "not_a_device",
        ),
        (
            json!({"kind": "stoppage", "reason": "x"}),
            "writer",
            403,
            "forbidden",
        ),
    ];
    for (body, who, status, code) in refused {
        let token = match who {
            "device" => &device,
            "supervisor" => &w.supervisor,
            _ => &w.writer,
        };
        let (got, e) = fault(token, body.clone());
        assert_eq!(
            (got, e["error"].as_str()),
            (status, Some(code)),
            "{body}: {e}"
        );
    }
    // A supervisor cannot enter balls while the device draws; games are drawn in order.
    let (status, e) = ball(&w.server, &w.supervisor, game, 5);
    assert_eq!((status, e["error"].as_str()), (409, Some("device_draw")));
    let (status, e) = ball(&w.server, &device, next, 5);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("earlier_game_not_drawn"))
    );
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM draw_faults"), 0);
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM drawn_numbers"), 0);
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM device_holds"), 0);
    let shown = w.server.get(&format!("/api/v1/games/{game}")).1;
    assert_eq!(
        (shown["state"].as_str(), shown["draw_mode"].as_str()),
        (Some("closed"), Some("device"))
    );

    // With three balls in: refusals found only after the fault row is written roll it back.
    for n in [10, 20, 30] {
        assert_eq!(ball(&w.server, &device, game, n).0, 201);
    }
    let refused: Vec<(Value, &str, u16, &str)> = vec![
        (
            json!({"kind": "broken_ball", "number": 40, "reason": "x"}),
            "device",
            409,
            "not_drawn",
        ),
        (
            json!({"kind": "spill", "attempt": 2, "reason": "x"}),
            "device",
            409,
            "draw_changed",
        ),
        (
            json!({"kind": "spill", "device": "x", "reason": "x"}),
            "device",
            400,
            "invalid_request",
        ),
        (
            json!({"kind": "no_device", "reason": "x"}),
            "device",
            409,
            "supervisor_only",
        ),
    ];
    for (body, who, status, code) in refused {
        let token = if who == "device" {
            &device
        } else {
            &w.supervisor
        };
        let (got, e) = fault(token, body.clone());
        assert_eq!(
            (got, e["error"].as_str()),
            (status, Some(code)),
            "{body}: {e}"
        );
    }
    let (status, e) = w.server.post(
        &device,
        &format!("/api/v1/games/{game}/balls"),
        json!({"number": 44, "attempt": 2}),
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("draw_changed")));
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM draw_faults"), 0);
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM voided_balls"), 0);
    assert_eq!(
        w.server.get(&format!("/api/v1/games/{game}")).1["drawn"],
        json!([10, 20, 30])
    );
    // A second device may not take over this device's draw.
    let other = db.principal("device", "BALLMACHINE-2", None);
    let (status, e) = ball(&w.server, &other, game, 44);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("another_device_drawing"))
    );
}

/// Rule 12.2 as decided (cash, and cheque for major prizes only): a ticket with a minor win and
/// a major prize is paid in parts, the minor win in cash and the major prize by cheque, or all
/// in cash as the payer chooses; the view shows the parts and `audit verify` checks them. The
/// first build paid such a ticket wholly by cheque. The balls are the test's, so the draw is
/// known.
fn rule_12_2_minor_wins_in_cash_and_major_prizes_by_cheque_or_in_cash(db: TestDb) {
    let w = world(&db, BALL_DEVICE);
    let s = &w.server;
    let device = db.principal("device", "BALLMACHINE-1", None);
    // Two ways at $70: a 1-spot on 1 ($210 for 1 of 1: major) and a 3-spot on 21, 22, 23 ($70
    // for 2 of 3: minor).
    let bet = json!({"type": "way", "groups": [[1], [21, 22, 23]], "combine": [1]});
    let serial = |t: Value| t["serial"].as_str().unwrap().to_string();
    let a = serial(s.sell(&w.writer, sale("a", bet.clone(), "standard", 7_000, 1)));
    let b = serial(s.sell(&w.writer, sale("b", bet.clone(), "standard", 7_000, 1)));
    let third = serial(s.sell(&w.writer, sale("c", bet, "standard", 7_000, 1)));
    let game = close(&w);
    let balls = [1, 21, 22].into_iter().chain(30..47);
    for n in balls {
        assert_eq!(ball(s, &device, game, n).0, 201);
    }
    s.wait_settled(game);
    let (_, d) = s.get_as(&w.writer, &format!("/api/v1/tickets/{a}"));
    let ways = &d["results"][0]["ways"];
    let (major, minor) = (
        ways[0]["prize_cents"].as_i64().unwrap(),
        ways[1]["prize_cents"].as_i64().unwrap(),
    );
    assert_eq!((major, minor), (21_000, 7_000), "{d}");
    assert_eq!(d["payment_parts"], json!([]), "unpaid: no parts");

    // A major prize is a hand-pay: the claimant and ID, and the cheque's number.
    let (status, e) = s.post(&w.writer, &format!("/api/v1/tickets/{a}/pay"), Value::Null);
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("hand_pay_required")),
        "{e}"
    );
    let (status, paid) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{a}/pay"),
        keno_testkit::hand_pay(),
    );
    assert_eq!(status, 200, "{paid}");
    let parts = json!([{"method": "cash", "cents": 7_000}, {"method": "cheque", "cents": 21_000}]);
    assert_eq!(
        (&paid["method"], &paid["parts"]),
        (&json!("cheque"), &parts),
        "{paid}"
    );
    let (_, d) = s.get_as(&w.writer, &format!("/api/v1/tickets/{a}"));
    assert_eq!(d["payment_parts"], parts, "{d}");
    // The answer keeps shared/API.md's `cash` | `cheque`; the ticket records both.
    assert_eq!(d["pay_method"], "cash_and_cheque", "{d}");
    let (_, c) = s.get(&format!("/api/v1/tickets/{a}/check"));
    assert_eq!(c["payment_parts"], parts, "the check page's data: {c}");

    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{b}/pay?major_prizes=gold"),
        keno_testkit::hand_pay(),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_request")),
        "{e}"
    );
    let (status, paid) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{b}/pay?major_prizes=cash"),
        keno_testkit::hand_pay(),
    );
    assert_eq!(status, 200, "{paid}");
    assert_eq!(
        paid["parts"],
        json!([{"method": "cash", "cents": 28_000}]),
        "{paid}"
    );
    assert_eq!(paid["method"], "cash");

    // As a voucher at the player's choice (rule 1(n)(ii)): the minor win on the voucher, the
    // major prize by cheque beside it.
    let (status, v) = s.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "c", "ticket": third, "hand_pay": keno_testkit::hand_pay()["hand_pay"]}),
    );
    assert_eq!(
        (status, v["amount_cents"].as_i64()),
        (201, Some(7_000)),
        "{v}"
    );
    let (_, d) = s.get_as(&w.writer, &format!("/api/v1/tickets/{third}"));
    let parts =
        json!([{"method": "voucher", "cents": 7_000}, {"method": "cheque", "cents": 21_000}]);
    assert_eq!(
        (&d["payment_parts"], &d["paid_as_voucher"]),
        (&parts, &v["code"]),
        "{d}"
    );
    parts_in_the_export_and_the_report(&db, &a);
    let verify = || keno_testkit::audit(&db, &["verify"]);
    let out = verify();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    db.execute(&format!(
        "UPDATE payment_parts SET method = 'cash' WHERE serial = '{a}' AND part = 2"
    ));
    let out = verify();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success() && text.contains("paid in parts"),
        "{text}"
    );
}

/// Rule 17.2 as decided (void wagers of a cheating player): voided before the draw, a ticket
/// takes no part in the game: three $27,000 majors would be pro-rated to a third of $50,000
/// each, but with one voided the other two share it in halves. Voided after, its prize is
/// withheld and nobody else's changes. The stake is refunded unless forfeited. The first build
/// had no way to void a ticket (`POST /tickets/{serial}/void` was a 404).
fn rule_17_2_a_voided_ticket_takes_no_part_and_its_prizes_are_withheld(db: TestDb) {
    let w = world(&db, &[BALL_DEVICE, keno_testkit::ANY_PAYOUT].concat());
    let s = &w.server;
    let device = db.principal("device", "BALLMACHINE-1", None);
    let one = json!({"type": "standard", "spots": [1]});
    let serial = |t: Value| t["serial"].as_str().unwrap().to_string();
    let [a, b, c] = ["a", "b", "c"]
        .map(|id| serial(s.sell(&w.writer, sale(id, one.clone(), "standard", 900_000, 1))));
    let void =
        |who: &str, t: &str, body: Value| s.post(who, &format!("/api/v1/tickets/{t}/void"), body);
    let why = json!({"reason": "marked the cards", "excluded_person": "man in a red cap"});
    assert_eq!(void(&w.writer, &c, why.clone()).0, 403);
    let (status, e) = void(&w.supervisor, &c, json!({"reason": " "}));
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_reason")),
        "{e}"
    );
    let (status, voided) = void(&w.supervisor, &c, why.clone());
    assert_eq!(
        (status, voided["refund_cents"].as_i64()),
        (200, Some(900_000)),
        "{voided}"
    );
    let (status, e) = void(&w.supervisor, &c, why);
    assert_eq!((status, e["error"].as_str()), (409, Some("voided")), "{e}");

    let game = close(&w);
    for n in 1..=20 {
        assert_eq!(ball(s, &device, game, n).0, 201);
    }
    s.wait_settled(game);
    let prize = |t: &str| {
        let (_, d) = s.get_as(&w.supervisor, &format!("/api/v1/tickets/{t}"));
        d["results"][0]["prize_cents"].as_i64().unwrap()
    };
    // Two majors of $27,000 over the $50,000 limit: $25,000 each (rules 12.3-12.5).
    assert_eq!((prize(&a), prize(&b)), (2_500_000, 2_500_000));
    let (_, d) = s.get_as(&w.supervisor, &format!("/api/v1/tickets/{c}"));
    assert_eq!(d["status"], "voided", "{d}");
    // It shows no prize for the game it took no part in (it drew 1 like the others).
    assert_eq!(d["results"][0]["voided"], true, "{d}");
    assert_eq!(d["results"][0]["prize_cents"], 0, "{d}");
    assert_eq!(d["results"][0]["ways"], json!([]), "{d}");
    assert_eq!(
        (d["won_cents"].as_i64(), d["payable_cents"].as_i64()),
        (Some(0), Some(0)),
        "{d}"
    );
    let (status, e) = s.post(&w.writer, &format!("/api/v1/tickets/{c}/pay"), Value::Null);
    assert_eq!((status, e["error"].as_str()), (409, Some("voided")), "{e}");

    // After the settlement: b's prize withheld, its stake forfeited; a keeps its prize.
    let (status, voided) = void(
        &w.supervisor,
        &b,
        json!({"reason": "past-posting", "forfeit": true}),
    );
    assert_eq!(
        (status, voided["refund_cents"].as_i64()),
        (200, Some(0)),
        "{voided}"
    );
    let (status, e) = s.post(&w.writer, &format!("/api/v1/tickets/{b}/pay"), Value::Null);
    assert_eq!((status, e["error"].as_str()), (409, Some("voided")), "{e}");
    // Voided after the settlement, it took part: its result stands, its prize withheld.
    let (_, d) = s.get_as(&w.supervisor, &format!("/api/v1/tickets/{b}"));
    assert_eq!(d["results"][0]["voided"], false, "{d}");
    assert_eq!(d["results"][0]["prize_cents"], 2_500_000, "{d}");
    let (status, paid) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{a}/pay"),
        keno_testkit::hand_pay(),
    );
    assert_eq!(
        (status, paid["paid_cents"].as_i64()),
        (200, Some(2_500_000)),
        "{paid}"
    );

    let audit = |args: &[&str]| keno_testkit::audit(&db, args);
    let day = chrono::Local::now().format("%Y-%m-%d").to_string();
    let out = audit(&[
        "exceptions",
        "--day",
        &day,
        "--json",
        "--keno-day-start",
        "00:00",
    ]);
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let voids: Vec<&Value> = found["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "ticket_voided")
        .collect();
    assert_eq!(voids.len(), 2, "{found:#}");
    let out = audit(&["verify"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    db.execute(&format!("DELETE FROM ticket_voids WHERE serial = '{b}'"));
    let out = audit(&["verify"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success() && text.contains(&format!("ticket {b}")),
        "{text}"
    );
}

/// The auditors' payments export and the daily report show ticket `a`'s $70 in cash and $210 by
/// cheque (rule 12.2).
fn parts_in_the_export_and_the_report(db: &TestDb, a: &str) {
    let day = chrono::Local::now().format("%Y-%m-%d").to_string();
    let dir = tempfile::tempdir().unwrap();
    let audit = |args: &[&str]| {
        let mut args = args.to_vec();
        args.extend(["--keno-day-start", "00:00"]);
        let out = keno_testkit::audit(db, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let csv_dir = dir.path().join("csv");
    audit(&[
        "export",
        "--from-day",
        &day,
        "--to-day",
        &day,
        "--out",
        csv_dir.to_str().unwrap(),
    ]);
    let mut reader = csv::Reader::from_path(csv_dir.join("payments.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let row = reader
        .records()
        .map(Result::unwrap)
        .find(|r| &r[col("serial")] == a)
        .expect("ticket a in the payments export");
    assert_eq!(
        (&row[col("cash_cents")], &row[col("cheque_cents")]),
        ("7000", "21000")
    );
    let pdf = dir.path().join("daily.pdf");
    audit(&["report", "--day", &day, "--out", pdf.to_str().unwrap()]);
    let text = keno_testkit::pdf_text(&pdf);
    assert!(text.contains("paid in parts"), "{text}");
}
