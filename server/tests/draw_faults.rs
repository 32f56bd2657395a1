//! Every irregularity of rule 10 with a ball device, end to end on SQLite and PostgreSQL: the
//! simulated ball machine (`keno-server device simulate`) draws against a real server and
//! injects each fault; supervisors and inspectors act through the console (`keno-server device
//! console`); the draw record shows who did what, when and why.

use std::collections::BTreeSet;

use keno_testkit::{
    free_port, on_both_backends, sale, world, Program, Server, TestDb, World, BALL_DEVICE,
};
use serde_json::{json, Value};

on_both_backends!(
    rule_10_2_too_few_balls_voids_the_draw_and_a_new_one_is_made,
    rule_10_4_a_a_broken_ball_is_void_and_the_device_waits_for_an_inspector,
    rule_10_4_b_after_a_fall_back_the_draw_is_finished_by_hand,
    rule_10_4_c_a_spill_voids_the_draw_until_the_device_is_returned,
    rule_10_4_d_after_a_stoppage_the_draw_is_finished_by_hand,
    rule_10_1_a_correction_needs_a_supervisor_and_an_inspector_before_settlement,
    a_game_whose_device_spilled_can_be_invalidated_and_refunded,
    rule_10_3_a_simulated_draw_goes_on_after_the_server_is_killed,
    a_correction_racing_its_rejection_ends_one_way_only,
);

struct Draw {
    w: World,
    /// The database's URL, for `audit verify`.
    db: String,
    device: String,
    device_id: String,
    inspector: String,
    game: i64,
    /// A ticket sold for the game.
    serial: String,
}

/// A ball-device server with one ticket sold in the game it then closes.
fn draw(db: &TestDb, extra: &[&str]) -> Draw {
    let args: Vec<&str> = BALL_DEVICE.iter().chain(extra).copied().collect();
    let w = world(db, &args);
    let device = db.principal("device", "BALLMACHINE-1", None);
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let device_id = w.server.get_as(&device, "/api/v1/principals/me").1["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ticket = w.server.sell(
        &w.writer,
        sale(
            "t1",
            json!({"type": "quick_pick", "count": 10}),
            "standard",
            500,
            1,
        ),
    );
    let game = close(&w.server, &w.supervisor);
    Draw {
        w,
        db: db.url.clone(),
        device,
        device_id,
        inspector,
        game,
        serial: ticket["serial"].as_str().unwrap().to_string(),
    }
}

fn close(server: &Server, supervisor: &str) -> i64 {
    let (status, game) = server.post(supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200, "{game}");
    game["number"].as_i64().unwrap()
}

fn simulate(server: &Server, token: &str, extra: &[&str]) -> Program {
    let mut args = vec![
        "device",
        "simulate",
        "--server",
        &server.base,
        "--token",
        token,
    ];
    if !extra.contains(&"--pace") {
        args.extend_from_slice(&["--pace", "0.01"]);
    }
    args.extend_from_slice(extra);
    Program::start(&args, None)
}

/// Runs the console with `commands` as its input; its exit code and output.
fn console(server: &Server, token: &str, game: i64, commands: &str) -> (i32, Vec<String>) {
    let game = game.to_string();
    Program::start(
        &[
            "device",
            "console",
            "--server",
            &server.base,
            "--token",
            token,
            "--game",
            &game,
        ],
        Some(commands),
    )
    .finish()
}

fn record(d: &Draw) -> Value {
    let (status, r) = d.w.server.get_as(
        &d.inspector,
        &format!("/api/v1/games/{}/draw-record", d.game),
    );
    assert_eq!(status, 200, "{r}");
    r
}

fn numbers(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_i64().unwrap())
        .collect()
}

/// The settled game's 20 numbers are distinct, on the board, and settle the ticket sold in it;
/// `audit verify` replays the draw from the trail, its faults' voided balls and corrections
/// included, and finds it as stored (issue 20).
fn assert_settled_properly(d: &Draw) -> Vec<i64> {
    let game = d.w.server.wait_settled(d.game);
    let drawn = numbers(&game["drawn"]);
    assert_eq!(drawn.len(), 20);
    assert_eq!(drawn.iter().collect::<BTreeSet<_>>().len(), 20);
    assert!(drawn.iter().all(|n| (1..=80).contains(n)));
    let (code, text) = verify(&d.db);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("draws ball by ball"), "{text}");
    drawn
}

fn verify(url: &str) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "verify", "--database-url", url])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap_or(-1), text)
}

fn rule_10_2_too_few_balls_voids_the_draw_and_a_new_one_is_made(db: TestDb) {
    let d = draw(&db, &[]);
    let (code, out) = simulate(
        &d.w.server,
        &d.device,
        &["--games", "1", "--fault", "short-of-balls@3"],
    )
    .finish();
    assert_eq!(code, 0, "{out:#?}");
    let drawn = assert_settled_properly(&d);
    let r = record(&d);
    assert_eq!(r["game"]["draw_attempt"], 2, "{r}");
    let faults = r["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 1, "{r}");
    assert_eq!(faults[0]["kind"], "short_of_balls");
    assert_eq!(faults[0]["attempt"], 1);
    assert_eq!(faults[0]["principal_id"], d.device_id.as_str());
    assert!(faults[0]["reason"].as_str().unwrap().contains("79 balls"));
    // The void draw's three balls are kept out of the record, not deleted.
    let voided = r["voided"].as_array().unwrap();
    assert_eq!(voided.len(), 3, "{r}");
    assert!(voided
        .iter()
        .all(|v| v["attempt"] == 1 && v["fault"] == faults[0]["id"]));
    // Every standing ball came from the device, in the second draw.
    assert!(r["balls"]
        .as_array()
        .unwrap()
        .iter()
        .all(|b| b["entered_by"] == d.device_id.as_str()));
    assert_eq!(
        numbers(&Value::Array(
            r["balls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["number"].clone())
                .collect()
        )),
        drawn
    );
    // The ticket is settled on the second draw's numbers.
    let (_, t) =
        d.w.server
            .get_as(&d.w.writer, &format!("/api/v1/tickets/{}", d.serial));
    let spots = numbers(&t["groups"][0]);
    let catch = spots.iter().filter(|n| drawn.contains(n)).count();
    assert_eq!(t["results"][0]["ways"][0]["catch"], catch, "{t}");
}

fn rule_10_4_a_a_broken_ball_is_void_and_the_device_waits_for_an_inspector(db: TestDb) {
    let d = draw(&db, &[]);
    let (code, out) = simulate(
        &d.w.server,
        &d.device,
        &["--games", "1", "--fault", "broken-ball@5"],
    )
    .finish();
    assert_eq!(code, 0, "{out:#?}");
    let drawn = assert_settled_properly(&d);
    // The voided ball is the trail's too: changed behind the server's back, it differs.
    let game = d.game;
    let voided = db.query_i64(&format!(
        "SELECT CAST(number AS BIGINT) AS n FROM voided_balls WHERE game = {game}"
    ));
    let other = (1..=80)
        .find(|n| *n != voided && !drawn.contains(n))
        .unwrap();
    db.execute(&format!(
        "UPDATE voided_balls SET number = {other} WHERE game = {game}"
    ));
    let (code, text) = verify(&d.db);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!(
            "game {game}: the voided balls differ from those the trail's faults took out"
        )),
        "{text}"
    );
    db.execute(&format!(
        "UPDATE voided_balls SET number = {voided} WHERE game = {game}"
    ));
    let r = record(&d);
    assert_eq!(
        r["game"]["draw_attempt"], 1,
        "the draw stands (rule 10.4(a))"
    );
    let fault = &r["faults"][0];
    assert_eq!(fault["kind"], "broken_ball");
    let broken = fault["number"].as_i64().unwrap();
    assert!(
        !drawn.contains(&broken),
        "the broken ball is not a winning number"
    );
    assert_eq!(r["voided"].as_array().unwrap().len(), 1);
    assert_eq!(r["voided"][0]["number"], broken);
    assert_eq!(r["voided"][0]["position"], 5);
    assert_eq!(fault["device_id"], d.device_id.as_str());

    // No further draw on the device before the ball is replaced before an inspector.
    let next = close(&d.w.server, &d.w.supervisor);
    let ball = |n: i64| {
        d.w.server.post(
            &d.device,
            &format!("/api/v1/games/{next}/balls"),
            json!({ "number": n }),
        )
    };
    let (status, e) = ball(1);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("device_out_of_service"))
    );
    let (_, dev) =
        d.w.server
            .get_as(&d.w.supervisor, &format!("/api/v1/devices/{}", d.device_id));
    assert_eq!(dev["in_service"], false);
    // A writer may not return it; a supervisor alone is not enough.
    let (status, _) = d.w.server.post(
        &d.w.writer,
        &format!("/api/v1/devices/{}/return", d.device_id),
        json!({"note": "replaced"}),
    );
    assert_eq!(status, 403);
    let (code, out) = console(
        &d.w.server,
        &d.w.supervisor,
        next,
        &format!(
            "return {} ball 23 replaced\nreturn {} again\n",
            d.device_id, d.device_id
        ),
    );
    assert_eq!(
        code, 1,
        "the second approval by the same role is refused: {out:#?}"
    );
    assert!(
        out.iter().any(|l| l.contains("needs the other role")),
        "{out:#?}"
    );
    assert!(
        out.iter().any(|l| l.contains("already_approved")),
        "{out:#?}"
    );
    assert_eq!(ball(1).1["error"], "device_out_of_service");
    let (code, out) = console(
        &d.w.server,
        &d.inspector,
        next,
        &format!("return {} witnessed the replacement\n", d.device_id),
    );
    assert_eq!(code, 0, "{out:#?}");
    assert!(
        out.iter().any(|l| l.contains("back in service")),
        "{out:#?}"
    );
    let (status, taken) = ball(1);
    assert_eq!(status, 201, "{taken}");
    let (_, dev) =
        d.w.server
            .get_as(&d.inspector, &format!("/api/v1/devices/{}", d.device_id));
    let hold = &dev["holds"][0];
    assert_eq!(dev["in_service"], true);
    assert_eq!(hold["fault_kind"], "broken_ball");
    assert_eq!(hold["supervisor_note"], "ball 23 replaced");
    assert_eq!(hold["inspector_note"], "witnessed the replacement");
}

/// The device draws `after` balls then reports `fault`; the supervisor finishes at the console.
fn finished_by_hand(db: TestDb, fault: &str, kind: &str, after: usize) {
    let d = draw(&db, &[]);
    let sim = simulate(
        &d.w.server,
        &d.device,
        &["--fault", &format!("{fault}@{after}")],
    );
    sim.wait_line("the fault", |l| l.contains("to be finished by hand"));
    sim.wait_line("the device waits", |l| {
        l.contains("being finished by hand: waiting")
    });
    let game = d.w.server.get(&format!("/api/v1/games/{}", d.game)).1;
    assert_eq!(game["draw_mode"], "manual");
    assert_eq!(game["state"], "drawing");
    let by_device = numbers(&game["drawn"]);
    assert_eq!(by_device.len(), after);
    // The device may not go on; balls come from the supervisor now.
    let (status, e) = d.w.server.post(
        &d.device,
        &format!("/api/v1/games/{}/balls", d.game),
        json!({ "number": (1..=80).find(|n| !by_device.contains(n)).unwrap() }),
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("manual_draw")));
    let by_hand: Vec<i64> = (1..=80)
        .rev()
        .filter(|n| !by_device.contains(n))
        .take(20 - after)
        .collect();
    // A typo is refused and changes nothing; the rest goes in.
    let first = by_hand[0];
    let rest: Vec<String> = by_hand[1..].iter().map(|n| n.to_string()).collect();
    let (code, out) = console(
        &d.w.server,
        &d.w.supervisor,
        d.game,
        &format!("show\n{first}\n{first}\n81\n{}\nrecord\n", rest.join(" ")),
    );
    assert_eq!(code, 1, "two refusals: {out:#?}");
    assert!(out.iter().any(|l| l.contains("duplicate_ball")), "{out:#?}");
    assert!(out.iter().any(|l| l.contains("invalid_number")), "{out:#?}");
    assert!(out.iter().any(|l| l.ends_with("drawn")), "{out:#?}");
    let drawn = assert_settled_properly(&d);
    assert_eq!(
        drawn[..after],
        by_device[..],
        "the device's balls stand (10.4(b))"
    );
    assert_eq!(drawn[after..], by_hand[..]);
    let r = record(&d);
    assert_eq!(r["faults"][0]["kind"], kind);
    assert_eq!(r["voided"], json!([]));
    // A stopped device is out of service from the next game until it is returned (10.4(d)).
    let (_, dev) =
        d.w.server
            .get_as(&d.inspector, &format!("/api/v1/devices/{}", d.device_id));
    let held = kind == "stoppage";
    assert_eq!(dev["in_service"], !held, "{dev}");
    if held {
        assert_eq!(dev["holds"][0]["blocks_from_game"], d.game + 1);
    }
    let supervisor_id =
        d.w.server
            .get_as(&d.w.supervisor, "/api/v1/principals/me")
            .1["id"]
            .clone();
    for (i, b) in r["balls"].as_array().unwrap().iter().enumerate() {
        let by = if i < after {
            json!(d.device_id)
        } else {
            supervisor_id.clone()
        };
        assert_eq!(b["entered_by"], by, "ball {}", i + 1);
    }
    drop(sim);
}

fn rule_10_4_b_after_a_fall_back_the_draw_is_finished_by_hand(db: TestDb) {
    finished_by_hand(db, "fall-back", "fall_back", 8);
}

fn rule_10_4_d_after_a_stoppage_the_draw_is_finished_by_hand(db: TestDb) {
    finished_by_hand(db, "stoppage", "stoppage", 12);
}

fn rule_10_4_c_a_spill_voids_the_draw_until_the_device_is_returned(db: TestDb) {
    let d = draw(&db, &[]);
    let sim = simulate(
        &d.w.server,
        &d.device,
        &["--games", "1", "--fault", "spill@6"],
    );
    sim.wait_line("the device waits", |l| {
        l.contains("out of service since fault")
    });
    let game = d.w.server.get(&format!("/api/v1/games/{}", d.game)).1;
    assert_eq!(game["state"], "void");
    assert_eq!(game["drawn"], json!([]), "nothing of a void draw is shown");
    assert_eq!(game["draw_attempt"], 2);
    // Numbers were drawn, even if void: the ticket can no longer be cancelled (rule 8.1).
    let (status, e) = d.w.server.post(
        &d.w.writer,
        &format!("/api/v1/tickets/{}/cancel", d.serial),
        Value::Null,
    );
    assert_eq!(status, 409, "{e}");
    // Returned by a supervisor and an inspector, each with their own token, it draws again.
    let (code, out) = console(
        &d.w.server,
        &d.w.supervisor,
        d.game,
        &format!("devices\nreturn {} machine cleaned\n", d.device_id),
    );
    assert_eq!(code, 0, "{out:#?}");
    assert!(out.iter().any(|l| l.contains("OUT OF SERVICE")), "{out:#?}");
    // One approval is not enough.
    let (_, dev) =
        d.w.server
            .get_as(&d.inspector, &format!("/api/v1/devices/{}", d.device_id));
    assert_eq!(dev["in_service"], false, "{dev}");
    assert!(dev["holds"][0]["supervisor_at"].is_string(), "{dev}");
    let (status, e) = d.w.server.post(
        &d.device,
        &format!("/api/v1/games/{}/balls", d.game),
        json!({ "number": 1 }),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("device_out_of_service"))
    );
    // The supervisor under an inspector's staff ID is still one person: the two keys are two
    // people (issue 31), whatever IDs they hold.
    let same = db.principal("inspector", "super", None);
    let (status, e) = d.w.server.post(
        &same,
        &format!("/api/v1/devices/{}/return", d.device_id),
        json!({"note": "inspected"}),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (403, Some("same_person")),
        "{e}"
    );
    let (code, out) = console(
        &d.w.server,
        &d.inspector,
        d.game,
        &format!("return {} inspected\n", d.device_id),
    );
    assert_eq!(code, 0, "{out:#?}");
    let (code, out) = sim.finish();
    assert_eq!(code, 0, "{out:#?}");
    assert_settled_properly(&d);
    let r = record(&d);
    assert_eq!(r["game"]["draw_attempt"], 2);
    assert_eq!(r["faults"][0]["kind"], "spill");
    let voided = r["voided"].as_array().unwrap();
    assert_eq!(voided.len(), 6);
    assert!(voided.iter().all(|v| v["attempt"] == 1));
}

fn rule_10_1_a_correction_needs_a_supervisor_and_an_inspector_before_settlement(db: TestDb) {
    let d = draw(&db, &[]);
    // The feed sends a wrong number for the fifth ball; the draw goes on at a machine's pace.
    let sim = simulate(
        &d.w.server,
        &d.device,
        &[
            "--games",
            "1",
            "--pace",
            "0.25",
            "--fault",
            "mis-transfer@4",
        ],
    );
    // "game 12: ball 5 shows 71 but the feed sent 17 (...)"
    let line = sim.wait_line("the mis-transfer", |l| l.contains("but the feed sent"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let on_ball: i64 = words[5].parse().unwrap();
    let sent: i64 = words[10].parse().unwrap();
    sim.wait_line("the fifth ball", |l| l.contains(": ball 5 = "));
    let shown = d.w.server.get(&format!("/api/v1/games/{}", d.game)).1;
    assert_eq!(shown["drawn"][4], sent);
    let path = format!("/api/v1/games/{}/corrections", d.game);
    // Not a writer's or a device's to ask.
    let ask = json!({ "position": 5, "number": on_ball, "reason": "ball 5 reads otherwise" });
    assert_eq!(d.w.server.post(&d.w.writer, &path, ask.clone()).0, 403);
    assert_eq!(d.w.server.post(&d.device, &path, ask.clone()).0, 403);
    let (status, e) = d.w.server.post(
        &d.w.supervisor,
        &path,
        json!({ "position": 5, "number": sent, "reason": "x" }),
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("no_change")));
    // The supervisor asks while the draw goes on: the record does not change, and once the
    // 20th ball is in, the game waits for the approvals instead of settling.
    let (status, c) = d.w.server.post(&d.w.supervisor, &path, ask);
    assert_eq!(status, 201, "{c}");
    let id = c["id"].as_i64().unwrap();
    assert_eq!(c["state"], "pending");
    let (code, out) = sim.finish();
    assert_eq!(code, 0, "{out:#?}");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let shown = d.w.server.get(&format!("/api/v1/games/{}", d.game)).1;
    assert_eq!(
        (shown["state"].as_str(), &shown["drawn"][4]),
        (Some("drawn"), &json!(sent)),
        "held unsettled by the pending correction"
    );
    // Nor can the supervisor under an inspector's staff ID: one person, two IDs (issue 31).
    let same = db.principal("inspector", " Super ", None);
    let (code, out) = console(&d.w.server, &same, d.game, &format!("approve {id}\n"));
    assert_eq!(code, 1, "{out:#?}");
    assert!(out.iter().any(|l| l.contains("same_person")), "{out:#?}");
    // A second supervisor cannot stand in for the inspector.
    let other_supervisor = db.principal("supervisor", "SUPER-2", None);
    let (code, out) = console(
        &d.w.server,
        &other_supervisor,
        d.game,
        &format!("approve {id}\n"),
    );
    assert_eq!(code, 1);
    assert!(
        out.iter().any(|l| l.contains("already_approved")),
        "{out:#?}"
    );
    // Meanwhile an inspector's own request, rejected by the supervisor: nothing changes.
    let (code, out) = console(
        &d.w.server,
        &d.inspector,
        d.game,
        &format!(
            "correct 1 {} looked wrong\n",
            (1..=80)
                .find(|n| !numbers(&shown["drawn"]).contains(n))
                .unwrap()
        ),
    );
    assert_eq!(code, 0, "{out:#?}");
    let second = out.iter().find(|l| l.starts_with("correction ")).unwrap();
    assert!(
        second.ends_with("it needs a supervisor's approval"),
        "{second}"
    );
    let second_id = second.split_whitespace().nth(1).unwrap().to_string();
    let (code, out) = console(
        &d.w.server,
        &d.w.supervisor,
        d.game,
        &format!("reject {second_id} the ball reads as recorded\n"),
    );
    assert_eq!(code, 0, "{out:#?}");
    // The inspector approves the supervisor's request: applied, then the game is settled.
    let (code, out) = console(
        &d.w.server,
        &d.inspector,
        d.game,
        &format!("approve {id}\nrecord\n"),
    );
    assert_eq!(code, 0, "{out:#?}");
    let drawn = assert_settled_properly(&d);
    assert_eq!(drawn[4], on_ball);
    assert_eq!(
        drawn[0],
        shown["drawn"][0].as_i64().unwrap(),
        "the rejected one changed nothing"
    );
    let r = record(&d);
    let applied = r["corrections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap()
        .clone();
    assert_eq!(applied["state"], "applied");
    assert_eq!(
        (
            applied["old_number"].as_i64(),
            applied["new_number"].as_i64()
        ),
        (Some(sent), Some(on_ball))
    );
    assert!(applied["supervisor"].is_string() && applied["inspector"].is_string());
    // After settlement nothing can be corrected.
    let (status, e) = d.w.server.post(
        &d.w.supervisor,
        &path,
        json!({ "position": 5, "number": sent, "reason": "too late" }),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("already_settled"))
    );
}

fn a_game_whose_device_spilled_can_be_invalidated_and_refunded(db: TestDb) {
    let d = draw(&db, &[]);
    let sim = simulate(&d.w.server, &d.device, &["--fault", "spill@4"]);
    sim.wait_line("the device waits", |l| {
        l.contains("out of service since fault")
    });
    let (status, inv) = d.w.server.post(
        &d.w.supervisor,
        &format!("/api/v1/games/{}/invalidate", d.game),
        json!({ "reason": "no ball machine available tonight" }),
    );
    assert_eq!(status, 200, "{inv}");
    assert_eq!(inv["tickets_refunded"], 1);
    assert_eq!(inv["refunded_cents"], 500);
    let serial = db.query_i64("SELECT COUNT(*) AS n FROM ticket_refunds");
    assert_eq!(serial, 1);
    let game = d.w.server.get(&format!("/api/v1/games/{}", d.game)).1;
    assert_eq!(game["state"], "invalidated");
    // The device gets nothing more to draw in it.
    let (status, e) = d.w.server.post(
        &d.device,
        &format!("/api/v1/games/{}/balls", d.game),
        json!({ "number": 3 }),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("game_not_drawing"))
    );
}

fn rule_10_3_a_simulated_draw_goes_on_after_the_server_is_killed(db: TestDb) {
    let listen = format!("127.0.0.1:{}", free_port());
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let device = db.principal("device", "BALLMACHINE-1", None);
    let server = Server::start_on(&db, &listen, BALL_DEVICE);
    server.sell(
        &writer,
        sale(
            "t1",
            json!({"type": "quick_pick", "count": 10}),
            "standard",
            500,
            1,
        ),
    );
    let game = close(&server, &supervisor);
    let base = server.base.clone();
    let sim = Program::start(
        &[
            "device", "simulate", "--server", &base, "--token", &device, "--pace", "0.15",
            "--games", "1",
        ],
        None,
    );
    sim.wait_line("seven balls", |l| l.contains(": ball 7 = "));
    server.kill();
    let before = db.query_i64(&format!(
        "SELECT COUNT(*) AS n FROM drawn_numbers WHERE game = {game}"
    ));
    assert!(before >= 7);
    let mut committed = Vec::new();
    for p in 1..=before {
        committed.push(db.query_i64(&format!(
            "SELECT CAST(number AS BIGINT) AS n FROM drawn_numbers WHERE game = {game} AND position = {p}"
        )));
    }
    std::thread::sleep(std::time::Duration::from_millis(700));
    let server = Server::start_on(&db, &listen, BALL_DEVICE);
    let (code, out) = sim.finish();
    assert_eq!(code, 0, "{out:#?}");
    assert!(
        out.iter()
            .any(|l| l.contains("server unreachable") || l.contains("no answer")),
        "{out:#?}"
    );
    let settled = server.wait_settled(game);
    let drawn = numbers(&settled["drawn"]);
    assert_eq!(drawn.len(), 20);
    assert_eq!(
        drawn[..committed.len()],
        committed[..],
        "the draw goes on from the last valid ball"
    );
    assert_eq!(drawn.iter().collect::<BTreeSet<_>>().len(), 20);
}

fn a_correction_racing_its_rejection_ends_one_way_only(db: TestDb) {
    let d = draw(&db, &[]);
    // 19 balls: the game stays open to correction.
    for n in 1..=19 {
        let (status, e) = d.w.server.post(
            &d.device,
            &format!("/api/v1/games/{}/balls", d.game),
            json!({ "number": n }),
        );
        assert_eq!(status, 201, "{e}");
    }
    let path = format!("/api/v1/games/{}/corrections", d.game);
    for position in 1..=6i64 {
        let new = 60 + position;
        let (status, c) = d.w.server.post(
            &d.w.supervisor,
            &path,
            json!({ "position": position, "number": new, "reason": "race" }),
        );
        assert_eq!(status, 201, "{c}");
        let id = c["id"].as_i64().unwrap();
        let server = &d.w.server;
        let (approve, reject) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                server.post(
                    &d.inspector,
                    &format!("/api/v1/corrections/{id}/approve"),
                    Value::Null,
                )
            });
            let r = s.spawn(|| {
                server.post(
                    &d.w.supervisor,
                    &format!("/api/v1/corrections/{id}/reject"),
                    json!({ "reason": "race" }),
                )
            });
            (a.join().unwrap(), r.join().unwrap())
        });
        let winners = [approve.0, reject.0].iter().filter(|s| **s == 200).count();
        assert_eq!(winners, 1, "approve {approve:?}, reject {reject:?}");
        let r = record(&d);
        let c = r["corrections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone();
        let on_record = r["game"]["drawn"][(position - 1) as usize]
            .as_i64()
            .unwrap();
        match c["state"].as_str().unwrap() {
            "applied" => assert_eq!((approve.0, on_record), (200, new), "{c}"),
            "rejected" => assert_eq!((reject.0, on_record), (200, position), "{c}"),
            other => panic!("correction ended {other}: {c}"),
        }
    }
}
