//! Set bets (rule 6.3(h)) and the regulator's approval of Special 3 (rule 18.4), over real HTTP
//! on SQLite and PostgreSQL (issue 8).

use std::collections::HashSet;
use std::process::Command;

use keno_testkit::{
    on_both_backends, rfc3339_in, sale, special3_rules, world, Server, TestDb, World, MANUAL_CLOCK,
};
use serde_json::{json, Value};

on_both_backends!(
    supervisors_keep_the_catalogue_and_everyone_can_read_it,
    a_set_bet_sells_and_settles_as_the_way_ticket_it_plays,
    special_3_sells_only_while_an_approval_is_in_force,
);

const CORNERS: &str = "Lucky Corners";

fn corners() -> Value {
    json!({
        "name": CORNERS,
        "groups": [[1, 2, 3], [10, 20, 30], [71, 72, 73]],
        "combine": [2, 3],
        "amount_per_way_cents": 100,
        "description": "the corners and the middle, two groups at a time and all three",
    })
}

fn set_bet(set: i64, mode: &str) -> Value {
    json!({"type": "set_bet", "set": set, "mode": mode})
}

fn count(db: &TestDb, table: &str) -> i64 {
    db.query_i64(&format!("SELECT COUNT(*) AS n FROM {table}"))
}

fn audit_entries(db: &TestDb, kind: &str) -> i64 {
    db.query_i64(&format!(
        "SELECT COUNT(*) AS n FROM audit_log WHERE kind = '{kind}'"
    ))
}

/// `keno-server audit ARGS` on the test's database, with the tests' Keno Day (from midnight).
fn audit(db: &TestDb, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .arg("audit")
        .args(args)
        .args(["--database-url", &db.url, "--keno-day-start", "00:00"])
        .env("KENO_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "audit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The day's exceptions of `kind`.
fn exceptions(db: &TestDb, day: &str, kind: &str) -> Vec<Value> {
    let found: Value =
        serde_json::from_str(&audit(db, &["exceptions", "--day", day, "--json"])).unwrap();
    found["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == kind)
        .cloned()
        .collect()
}

fn verify(db: &TestDb) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "verify", "--database-url", &db.url])
        .env("KENO_LOG", "warn")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap_or(-1), text)
}

fn supervisors_keep_the_catalogue_and_everyone_can_read_it(db: TestDb) {
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;

    // Only a supervisor adds sets.
    for (token, status) in [
        (&w.writer, 403),
        (&inspector, 403),
        (&"nobody".to_string(), 401),
    ] {
        let (st, e) = s.post(token, "/api/v1/set-bets", corners());
        assert_eq!(st, status, "{e}");
    }
    let (status, set) = s.post(&w.supervisor, "/api/v1/set-bets", corners());
    assert_eq!(status, 201, "{set}");
    let id = set["id"].as_i64().unwrap();
    // Three ways of 6 (which play Special 1, rule 18.2) and one of 9: 4 ways at $1.
    assert_eq!(
        set["ways"],
        json!([{"count": 3, "spots": 6, "plays_as": "special1"}, {"count": 1, "spots": 9, "plays_as": "standard"}])
    );
    assert_eq!(
        (
            set["way_count"].as_u64(),
            set["game_cost_cents"].as_u64(),
            set["on_sale"].as_bool()
        ),
        (Some(4), Some(400), Some(true))
    );

    // Public: terminals and displays list it without a token.
    let (status, list) = s.get("/api/v1/set-bets");
    assert_eq!(status, 200, "{list}");
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["name"], CORNERS);
    assert_eq!(
        list[0]["groups"],
        json!([[1, 2, 3], [10, 20, 30], [71, 72, 73]])
    );
    assert_eq!(s.get(&format!("/api/v1/set-bets/{id}")).1["id"], id);
    assert_eq!(s.get("/api/v1/set-bets/999").0, 404);

    // Bad sets are refused in words, with nothing stored.
    let with = |field: &str, value: Value| {
        let mut body = corners();
        body["name"] = json!("Another");
        body[field] = value;
        body
    };
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            with("groups", json!([[1, 2], [2, 3]])),
            422,
            "invalid_selection",
        ),
        (
            with("groups", json!([[1, 2], [81]])),
            422,
            "invalid_selection",
        ),
        (with("groups", json!([])), 422, "invalid_selection"),
        (with("combine", json!([4])), 422, "invalid_selection"),
        (
            with(
                "groups",
                json!([(1..=8).collect::<Vec<u8>>(), (11..=18).collect::<Vec<u8>>()]),
            ),
            422,
            "invalid_selection",
        ),
        // Four ways: at least 50 cents a way, in 10-cent steps (rule 6.2(d)).
        (
            with("amount_per_way_cents", json!(40)),
            422,
            "below_minimum_wager",
        ),
        (
            with("amount_per_way_cents", json!(55)),
            422,
            "invalid_wager_increment",
        ),
        (with("name", json!("  ")), 400, "invalid_name"),
        (with("name", json!("x".repeat(33))), 400, "invalid_name"),
        (
            with("description", json!("y".repeat(201))),
            400,
            "invalid_description",
        ),
        (with("colour", json!("red")), 400, "invalid_request"),
        (
            with("amount_per_way_cents", json!(-100)),
            400,
            "invalid_request",
        ),
        // Names are unique among the sets on sale, case aside.
        (with("name", json!("LUCKY corners")), 409, "set_name_taken"),
    ];
    for (body, status, code) in cases {
        let (st, e) = s.post(&w.supervisor, "/api/v1/set-bets", body.clone());
        assert_eq!(
            (st, e["error"].as_str()),
            (status, Some(code)),
            "{body}: {e}"
        );
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    assert_eq!(count(&db, "set_bets"), 1);
    assert_eq!(audit_entries(&db, "set_bet_created"), 1);

    // Retiring: a supervisor's act, once; the set stays readable but leaves the list.
    let retire = format!("/api/v1/set-bets/{id}/retire");
    assert_eq!(s.post(&w.writer, &retire, Value::Null).0, 403);
    // Why is asked (issue 34, 6): a body that is not a reason, or a blank one, retires nothing.
    for (body, code) in [
        (json!({"why": "over"}), "invalid_request"),
        (json!({"reason": "  "}), "invalid_reason"),
    ] {
        let (status, e) = s.post(&w.supervisor, &retire, body.clone());
        assert_eq!(
            (status, e["error"].as_str()),
            (400, Some(code)),
            "{body}: {e}"
        );
    }
    assert_eq!(s.get("/api/v1/set-bets").1[0]["on_sale"], true);
    let (status, retired) = s.post(
        &w.supervisor,
        &retire,
        json!({"reason": "the corners promotion is over"}),
    );
    assert_eq!(status, 200, "{retired}");
    assert_eq!(retired["on_sale"], false);
    assert!(retired["retired_at"].is_string());
    assert_eq!(retired["retired_reason"], "the corners promotion is over");
    let entry = db.query_text("SELECT payload AS s FROM audit_log WHERE kind = 'set_bet_retired'");
    assert!(entry.contains("the corners promotion is over"), "{entry}");
    // A client of the first API sends no reason: still understood (here: retired already).
    let (status, e) = s.post(&w.supervisor, &retire, Value::Null);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("already_retired"))
    );
    assert_eq!(
        s.post(&w.supervisor, "/api/v1/set-bets/999/retire", Value::Null)
            .0,
        404
    );
    assert_eq!(s.get("/api/v1/set-bets").1, json!([]));
    let all = s.get("/api/v1/set-bets?include_retired=true").1;
    assert_eq!(all.as_array().unwrap().len(), 1);
    assert_eq!(all[0]["on_sale"], false);
    // Its name is free again.
    let (status, again) = s.post(&w.supervisor, "/api/v1/set-bets", corners());
    assert_eq!(status, 201, "{again}");
    assert_ne!(again["id"], id);

    // No Special 3 table in the built-in rules: there is nothing to approve.
    let approval = json!({"reference": "CSA 2026/17", "approved_by": "J. Citizen, CSA"});
    let (status, e) = s.post(&inspector, "/api/v1/special3/approvals", approval);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("special3_not_defined")),
        "{e}"
    );
    assert_eq!(count(&db, "special3_approvals"), 0);

    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("checked: 2 set bets"), "{text}");
}

/// Each game's ways (numbers, catch, prize) of a ticket.
fn results(s: &Server, token: &str, serial: &str) -> Value {
    let (status, t) = s.get_as(token, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(status, 200, "{t}");
    t
}

fn a_set_bet_sells_and_settles_as_the_way_ticket_it_plays(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let (status, set) = s.post(&w.supervisor, "/api/v1/set-bets", corners());
    assert_eq!(status, 201, "{set}");
    let id = set["id"].as_i64().unwrap();

    // Fixed: the catalogue's numbers, priced as the way ticket of the same groups.
    let fixed = s.sell(
        &w.writer,
        sale("fixed", set_bet(id, "fixed"), "standard", 100, 2),
    );
    let way = s.sell(
        &w.writer,
        sale(
            "way",
            json!({"type": "way", "groups": set["groups"], "combine": set["combine"]}),
            "standard",
            100,
            2,
        ),
    );
    assert_eq!(fixed["bet_type"], "set_bet");
    assert_eq!(way["bet_type"], "way");
    assert_eq!(fixed["groups"], set["groups"]);
    assert_eq!(
        fixed["set_bet"],
        json!({"id": id, "name": CORNERS, "mode": "fixed"})
    );
    assert_eq!(way["set_bet"], Value::Null);
    for field in [
        "groups",
        "combine",
        "ways",
        "amount_per_way_cents",
        "games",
        "charged_games",
        "game_cost_cents",
        "total_cents",
        "first_game",
        "last_game",
    ] {
        assert_eq!(fixed[field], way[field], "{field}");
    }
    assert_eq!(fixed["total_cents"], 800);
    // Below the way minimum for 4 ways (rule 6.2(d)), as the way ticket would be.
    let (status, e) = s.post(
        &w.writer,
        "/api/v1/tickets",
        sale("cheap", set_bet(id, "fixed"), "standard", 40, 1),
    );
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("below_minimum_wager"))
    );

    // A quote prices it as the sale would and sells nothing.
    let tickets_before = count(&db, "tickets");
    let (status, q) = s.post(
        &w.writer,
        "/api/v1/tickets/quote",
        sale("quote", set_bet(id, "random"), "standard", 100, 2),
    );
    assert_eq!(status, 200, "{q}");
    assert_eq!(
        (q["total_cents"].clone(), q["ways"].clone()),
        (fixed["total_cents"].clone(), fixed["ways"].clone())
    );
    assert_eq!(count(&db, "tickets"), tickets_before);

    // Random: fresh numbers in groups of the same sizes, with the same combinations.
    let random = s.sell(
        &w.writer,
        sale("random", set_bet(id, "random"), "standard", 100, 2),
    );
    assert_eq!(
        random["set_bet"],
        json!({"id": id, "name": CORNERS, "mode": "random"})
    );
    let groups: Vec<Vec<u8>> = serde_json::from_value(random["groups"].clone()).unwrap();
    assert_eq!(
        groups.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![3, 3, 3]
    );
    let numbers: HashSet<u8> = groups.iter().flatten().copied().collect();
    assert_eq!(numbers.len(), 9, "distinct: {groups:?}");
    assert!(numbers.iter().all(|n| (1..=80).contains(n)), "{groups:?}");
    assert_ne!(random["groups"], set["groups"], "fresh numbers");
    assert_eq!(random["combine"], json!([2, 3]));
    assert_eq!(random["ways"], fixed["ways"]);
    assert_eq!(random["total_cents"], fixed["total_cents"]);
    // A retry of the same sale is the same ticket with the same numbers: picked once.
    let (status, retried) = s.post(
        &w.writer,
        "/api/v1/tickets",
        sale("random", set_bet(id, "random"), "standard", 100, 2),
    );
    assert_eq!(status, 200, "{retried}");
    assert_eq!(retried["serial"], random["serial"]);
    assert_eq!(retried["groups"], random["groups"]);
    assert_eq!(retried["set_bet"], random["set_bet"]);
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM tickets WHERE request_id = 'random'"),
        1
    );
    // What is stored is what was answered: the numbers played, and the set.
    let serial = random["serial"].as_str().unwrap();
    let stored = db.query_text(&format!(
        "SELECT groups_json AS s FROM tickets WHERE serial = '{serial}'"
    ));
    assert_eq!(
        serde_json::from_str::<Value>(&stored).unwrap(),
        random["groups"]
    );
    assert_eq!(
        db.query_text(&format!(
            "SELECT mode AS s FROM set_bet_tickets WHERE serial = '{serial}' AND set_bet_id = {id}"
        )),
        "random"
    );
    // The player's check shows the set too.
    let (status, check) = s.get(&format!("/api/v1/tickets/{serial}/check"));
    assert_eq!(status, 200, "{check}");
    assert_eq!(check["set_bet"]["name"], CORNERS);
    assert_eq!(check["bet_type"], "set_bet");

    // Retired and unknown sets are refused, with nothing sold...
    let (status, _) = s.post(
        &w.supervisor,
        &format!("/api/v1/set-bets/{id}/retire"),
        Value::Null,
    );
    assert_eq!(status, 200);
    let sold = count(&db, "tickets");
    for (request, bet, code) in [
        ("r1", set_bet(id, "fixed"), "set_retired"),
        ("r2", set_bet(id, "random"), "set_retired"),
        ("r3", set_bet(9999, "fixed"), "unknown_set"),
    ] {
        let (status, e) = s.post(
            &w.writer,
            "/api/v1/tickets",
            sale(request, bet, "standard", 100, 1),
        );
        assert_eq!((status, e["error"].as_str()), (422, Some(code)), "{e}");
        assert!(e["message"].as_str().unwrap().contains("6.3(h)"), "{e}");
    }
    for bad in [
        json!({"type": "set_bet", "set": id, "mode": "sometimes"}),
        json!({"type": "set_bet", "mode": "fixed"}),
        json!({"type": "set_bet", "set": "one", "mode": "fixed"}),
        json!({"type": "set_bet", "set": id, "mode": "fixed", "groups": [[1]]}),
    ] {
        let (status, e) = s.post(
            &w.writer,
            "/api/v1/tickets",
            sale("bad", bad.clone(), "standard", 100, 1),
        );
        assert_eq!(
            (status, e["error"].as_str()),
            (400, Some("invalid_request")),
            "{bad}: {e}"
        );
    }
    assert_eq!(count(&db, "tickets"), sold);
    assert_eq!(count(&db, "set_bet_tickets"), 2);
    // ...but a retry of a sale made before the set was retired still gets its ticket.
    let (status, again) = s.post(
        &w.writer,
        "/api/v1/tickets",
        sale("random", set_bet(id, "random"), "standard", 100, 2),
    );
    assert_eq!(
        (status, again["serial"].clone()),
        (200, random["serial"].clone())
    );

    // Settled as the way ticket it plays: the same ways, catches and prizes, game by game.
    let first = fixed["first_game"].as_i64().unwrap();
    s.close_and_settle(&w.supervisor);
    s.close_and_settle(&w.supervisor);
    let f = results(s, &w.writer, fixed["serial"].as_str().unwrap());
    let v = results(s, &w.writer, way["serial"].as_str().unwrap());
    assert_eq!(f["results"].as_array().unwrap().len(), 2);
    for (fr, vr) in f["results"]
        .as_array()
        .unwrap()
        .iter()
        .zip(v["results"].as_array().unwrap())
    {
        assert_eq!(fr["state"], "settled");
        assert_eq!(fr["ways"], vr["ways"], "game {}", fr["game"]);
        assert_eq!(fr["prize_cents"], vr["prize_cents"]);
        assert_eq!(fr["ways"].as_array().unwrap().len(), 4);
    }
    assert_eq!(f["results"][0]["game"], first);
    assert_eq!(f["won_cents"], v["won_cents"]);
    assert_eq!(f["payable_cents"], v["payable_cents"]);
    assert_eq!(f["set_bet"]["mode"], "fixed");
    let r = results(s, &w.writer, serial);
    assert!(r["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["state"] == "settled"));
    // The random ticket's ways are its own numbers.
    let ways: Vec<Vec<u8>> = r["results"][0]["ways"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| serde_json::from_value(w["numbers"].clone()).unwrap())
        .collect();
    assert!(ways.iter().flatten().all(|n| numbers.contains(n)));

    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("1 set bets, 2 tickets sold from them"),
        "{text}"
    );

    // The auditors' export names each set bet's set; the day's exceptions list the catalogue's
    // changes, with who made them.
    let out = tempfile::tempdir().unwrap();
    let (lo, hi) = (first.to_string(), (first + 1).to_string());
    let dir = out.path().display().to_string();
    audit(
        &db,
        &[
            "export",
            "--from-game",
            &lo,
            "--to-game",
            &hi,
            "--format",
            "json",
            "--out",
            &dir,
        ],
    );
    let rows: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("tickets.json")).unwrap())
            .unwrap();
    let row = |serial: &Value| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["serial"] == *serial)
            .unwrap()
            .clone()
    };
    let (f, r, v) = (
        row(&fixed["serial"]),
        row(&random["serial"]),
        row(&way["serial"]),
    );
    assert_eq!(
        (
            f["set_bet_id"].clone(),
            f["set_bet_name"].clone(),
            f["set_bet_mode"].clone(),
            f["bet_type"].clone()
        ),
        (json!(id), json!(CORNERS), json!("fixed"), json!("set_bet"))
    );
    assert_eq!(r["set_bet_mode"], "random");
    assert_eq!(
        (v["set_bet_id"].clone(), v["set_bet_name"].clone()),
        (Value::Null, Value::Null)
    );
    let day = fixed["keno_day"].as_str().unwrap();
    let changes = exceptions(&db, day, "set_bet");
    assert_eq!(changes.len(), 2, "{changes:#?}");
    assert!(
        changes[0]["what"]
            .as_str()
            .unwrap()
            .contains("added to the catalogue"),
        "{changes:#?}"
    );
    assert!(
        changes[1]["what"].as_str().unwrap().contains("retired"),
        "{changes:#?}"
    );
    assert!(changes
        .iter()
        .all(|c| c["who"].as_str().unwrap().starts_with("SUPER (supervisor)")));
}

fn special_3_sells_only_while_an_approval_is_in_force(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let rules = special3_rules(dir.path(), 15_000);
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let w = world(&db, &[MANUAL_CLOCK, &["--rules", rules.as_str()]].concat());
    let s = &w.server;
    let special3 = |id: &str| {
        sale(
            id,
            json!({"type": "standard", "spots": [1, 2, 3, 4]}),
            "special3",
            100,
            1,
        )
    };
    let on_board = |s: &Server| {
        s.get("/api/v1/schedules")
            .1
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["schedule"] == "special3")
    };

    // The table is in the rule set, but no approval is recorded: not sold, not on the board.
    let (status, e) = s.post(&w.writer, "/api/v1/tickets", special3("a"));
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("schedule_not_approved")),
        "{e}"
    );
    assert!(e["message"].as_str().unwrap().contains("18.4"));
    assert!(!on_board(s));
    let (status, st) = s.get_as(&w.supervisor, "/api/v1/special3/approvals");
    assert_eq!(status, 200, "{st}");
    assert_eq!(
        (st["defined"].as_bool(), st["on_sale"].as_bool()),
        (Some(true), Some(false))
    );
    let digest = st["schedule_digest"].as_str().unwrap().to_string();
    assert_eq!(digest.len(), 64);
    assert_eq!(s.get_as(&w.writer, "/api/v1/special3/approvals").0, 403);

    // Only an inspector records an approval, and bad ones are refused with nothing stored.
    let approval = json!({
        "reference": "CSA approval 2026/17",
        "approved_by": "J. Citizen, Casino Surveillance Authority",
        "approved_at": rfc3339_in(-86_400),
        "note": "the spring promotion",
    });
    for token in [&w.writer, &w.supervisor] {
        assert_eq!(
            s.post(token, "/api/v1/special3/approvals", approval.clone())
                .0,
            403
        );
    }
    let with = |field: &str, value: Value| {
        let mut body = approval.clone();
        body[field] = value;
        body
    };
    for (body, code) in [
        (with("reference", json!(" ")), "invalid_approval"),
        (with("approved_by", json!("")), "invalid_approval"),
        (
            with("approved_at", json!(rfc3339_in(3_600))),
            "invalid_approval",
        ),
        (with("approved_at", json!("yesterday")), "invalid_approval"),
        (
            with("expires_at", json!(rfc3339_in(-60))),
            "invalid_approval",
        ),
        (with("regulator", json!("CSA")), "invalid_request"),
    ] {
        let (status, e) = s.post(&inspector, "/api/v1/special3/approvals", body.clone());
        assert_eq!(
            (status, e["error"].as_str()),
            (400, Some(code)),
            "{body}: {e}"
        );
    }
    assert_eq!(count(&db, "special3_approvals"), 0);

    let (status, a) = s.post(&inspector, "/api/v1/special3/approvals", approval.clone());
    assert_eq!(status, 201, "{a}");
    assert_eq!(a["in_force"], true);
    assert_eq!(a["schedule_digest"], digest);
    assert_eq!(a["reference"], "CSA approval 2026/17");
    let approval_id = a["id"].as_i64().unwrap();
    assert!(on_board(s));
    let sold = s.sell(&w.writer, special3("b"));
    assert_eq!(sold["schedule"], "special3");
    assert_eq!(
        sold["ways"],
        json!([{"count": 1, "spots": 4, "plays_as": "special3"}])
    );

    // A supervisor withdraws it: Special 3 is no longer sold; the ticket sold stands.
    let withdraw = format!("/api/v1/special3/approvals/{approval_id}/withdraw");
    assert_eq!(s.post(&w.writer, &withdraw, json!({"reason": "x"})).0, 403);
    let (status, e) = s.post(&w.supervisor, &withdraw, json!({"reason": ""}));
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_reason")));
    let (status, a) = s.post(
        &w.supervisor,
        &withdraw,
        json!({"reason": "the promotion ended"}),
    );
    assert_eq!(status, 200, "{a}");
    assert_eq!(a["in_force"], false);
    assert!(a["withdrawn_at"].is_string());
    let (status, e) = s.post(&w.supervisor, &withdraw, json!({"reason": "again"}));
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("already_withdrawn"))
    );
    assert_eq!(
        s.post(
            &w.supervisor,
            "/api/v1/special3/approvals/999/withdraw",
            json!({"reason": "x"})
        )
        .0,
        404
    );
    let (status, e) = s.post(&w.writer, "/api/v1/tickets", special3("c"));
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("schedule_not_approved")),
        "{e}"
    );
    assert!(!on_board(s));
    let game = s.close_and_settle(&w.supervisor);
    let t = results(s, &w.writer, sold["serial"].as_str().unwrap());
    assert_eq!(t["results"][0]["state"], "settled", "{game}");

    // An approval that expires: sold until then, not after.
    let (status, a) = s.post(
        &inspector,
        "/api/v1/special3/approvals",
        with("expires_at", json!(rfc3339_in(3))),
    );
    assert_eq!(status, 201, "{a}");
    s.sell(&w.writer, special3("d"));
    s.wait_for("the approval to expire", || {
        s.post(&w.writer, "/api/v1/tickets/quote", special3("e")).0 == 422
    });
    let (status, e) = s.post(&w.writer, "/api/v1/tickets", special3("e"));
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("schedule_not_approved"))
    );
    let (_, st) = s.get_as(&inspector, "/api/v1/special3/approvals");
    assert_eq!(st["approvals"].as_array().unwrap().len(), 2);
    assert_eq!(st["on_sale"], false);

    // An approval covers the table it was recorded for: a changed prize needs approving again.
    let (status, a) = s.post(&inspector, "/api/v1/special3/approvals", approval.clone());
    assert_eq!(status, 201, "{a}");
    s.sell(&w.writer, special3("f"));
    let w = {
        let World {
            server,
            writer,
            supervisor,
        } = w;
        server.kill();
        let changed = special3_rules(dir.path(), 20_000);
        let server = Server::start(
            &db,
            &[MANUAL_CLOCK, &["--rules", changed.as_str()]].concat(),
        );
        World {
            server,
            writer,
            supervisor,
        }
    };
    let s = &w.server;
    let (_, st) = s.get_as(&inspector, "/api/v1/special3/approvals");
    assert_ne!(st["schedule_digest"], digest);
    assert_eq!(
        (st["defined"].as_bool(), st["on_sale"].as_bool()),
        (Some(true), Some(false))
    );
    let (status, e) = s.post(&w.writer, "/api/v1/tickets", special3("g"));
    assert_eq!(
        (status, e["error"].as_str()),
        (422, Some("schedule_not_approved")),
        "{e}"
    );
    let (status, _) = s.post(&inspector, "/api/v1/special3/approvals", approval);
    assert_eq!(status, 201);
    s.sell(&w.writer, special3("g"));

    assert_eq!(audit_entries(&db, "special3_approval_recorded"), 4);
    assert_eq!(audit_entries(&db, "special3_approval_withdrawn"), 1);
    let day = sold["keno_day"].as_str().unwrap();
    let acts = exceptions(&db, day, "special3_approval");
    assert_eq!(acts.len(), 5, "{acts:#?}");
    let withdrawal = acts
        .iter()
        .find(|a| a["what"].as_str().unwrap().contains("withdrawn"))
        .unwrap();
    assert_eq!(withdrawal["why"], "the promotion ended");
    assert!(withdrawal["who"]
        .as_str()
        .unwrap()
        .starts_with("SUPER (supervisor)"));
    assert!(
        acts.iter()
            .filter(|a| a["who"].as_str().unwrap().starts_with("INSPECTOR"))
            .count()
            == 4
    );
    let (code, text) = verify(&db);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("4 approvals of Special 3"), "{text}");
}
