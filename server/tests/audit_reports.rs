//! The auditors' tools (issue 7) against a real day of play, on SQLite and PostgreSQL: a real
//! server sells tickets of every kind, settles two games, cancels a ticket, pays winners and
//! invalidates a game; then `keno-server audit export`, `report` and `exceptions` read the same
//! database and must agree with what the API says.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use keno_core::money::Dollars;
use keno_testkit::{on_both_backends, sale, world, TestDb, World, BALL_DEVICE, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    the_audit_tools_agree_with_the_api,
    the_exceptions_show_a_void_draw_a_correction_and_a_returned_device,
);

/// The server runs Keno all day from midnight (`MANUAL_CLOCK`): the audit is told the same.
fn audit(db: &TestDb, args: &[&str]) -> Output {
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
    out
}

/// A CSV file as rows of column name to value.
fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(str::to_string))
                .collect()
        })
        .collect()
}

fn json_rows(path: &Path) -> Vec<Value> {
    serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap())
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn money(cents: i64) -> String {
    Dollars(cents as u64).to_string()
}

fn numbers(game: &Value) -> Vec<i64> {
    game["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_i64().unwrap())
        .collect()
}

fn sell(w: &World, sold: &mut Vec<Value>, body: Value) -> String {
    let t = w.server.sell(&w.writer, body);
    let serial = t["serial"].as_str().unwrap().to_string();
    sold.push(t);
    serial
}

fn the_audit_tools_agree_with_the_api(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let writer_id = s.get_as(&w.writer, "/api/v1/principals/me").1["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut sold: Vec<Value> = Vec::new();

    // Game A: one 1-spot ticket on every number (20 of them win, whatever is drawn), a way
    // ticket (Diagram C), a 7-spot, a quick pick, a jackpot entry, a ticket for three games, and
    // one cancelled before the game closes.
    let cover: Vec<String> = (1..=80)
        .map(|n| {
            sell(
                &w,
                &mut sold,
                sale(
                    &format!("cover-{n}"),
                    json!({"type": "standard", "spots": [n]}),
                    "standard",
                    100,
                    1,
                ),
            )
        })
        .collect();
    sell(
        &w,
        &mut sold,
        sale(
            "way",
            json!({"type": "way", "groups": [[6, 45], [36, 80]], "combine": [2]}),
            "standard",
            300,
            1,
        ),
    );
    sell(
        &w,
        &mut sold,
        sale(
            "seven",
            json!({"type": "standard", "spots": [1, 2, 3, 4, 5, 6, 7]}),
            "standard",
            200,
            1,
        ),
    );
    sell(
        &w,
        &mut sold,
        sale(
            "qp",
            json!({"type": "quick_pick", "count": 5}),
            "standard",
            200,
            1,
        ),
    );
    sell(
        &w,
        &mut sold,
        sale(
            "jackpot",
            json!({"type": "standard", "spots": [11, 22, 33, 44, 55, 66]}),
            "jackpot",
            200,
            1,
        ),
    );
    let three = sell(
        &w,
        &mut sold,
        sale(
            "three",
            json!({"type": "standard", "spots": [9]}),
            "standard",
            100,
            3,
        ),
    );
    let cancelled = sell(
        &w,
        &mut sold,
        sale(
            "cancel-me",
            json!({"type": "standard", "spots": [1, 2, 3]}),
            "standard",
            500,
            1,
        ),
    );
    let (status, cancel) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{cancelled}/cancel"),
        Value::Null,
    );
    assert_eq!(status, 200, "{cancel}");
    let game_a = s.close_and_settle(&w.supervisor);

    // Game B: a mystery quick pick and a Special 1 entry.
    sell(
        &w,
        &mut sold,
        sale(
            "mystery",
            json!({"type": "mystery_quick_pick"}),
            "standard",
            100,
            1,
        ),
    );
    sell(
        &w,
        &mut sold,
        sale(
            "special",
            json!({"type": "standard", "spots": [10, 20, 30, 40]}),
            "special1",
            100,
            1,
        ),
    );
    let game_b = s.close_and_settle(&w.supervisor);

    // Game C: sold, then invalidated while open (every wager refunded).
    sell(
        &w,
        &mut sold,
        sale(
            "in-c",
            json!({"type": "standard", "spots": [1, 2, 3, 4]}),
            "standard",
            300,
            1,
        ),
    );
    let game_c = s.get("/api/v1/games/current").1["number"].as_i64().unwrap();
    let reason = "fire alarm: building evacuated";
    let (status, inv) = s.post(
        &w.supervisor,
        &format!("/api/v1/games/{game_c}/invalidate"),
        json!({ "reason": reason }),
    );
    assert_eq!(status, 200, "{inv}");

    // Pay a winner of game A and the three-game ticket (its refund for game C at least).
    let winner = &cover[numbers(&game_a)[0] as usize - 1];
    let mut paid: BTreeMap<String, Value> = BTreeMap::new();
    for serial in [winner, &three] {
        let (status, p) = s.post(
            &w.writer,
            &format!("/api/v1/tickets/{serial}/pay"),
            Value::Null,
        );
        assert_eq!(status, 200, "{p}");
        paid.insert(serial.clone(), p);
    }

    // The API's view of the day.
    let day = game_a["keno_day"].as_str().unwrap().to_string();
    let (_, api_games) = s.get(&format!("/api/v1/games?keno_day={day}"));
    let api_games = api_games.as_array().unwrap().clone();
    let details: BTreeMap<String, Value> = sold
        .iter()
        .map(|t| {
            let serial = t["serial"].as_str().unwrap();
            let (status, d) = s.get_as(&w.writer, &format!("/api/v1/tickets/{serial}"));
            assert_eq!(status, 200, "{d}");
            (serial.to_string(), d)
        })
        .collect();
    let total_sold: i64 = sold
        .iter()
        .map(|t| t["total_cents"].as_i64().unwrap())
        .sum();
    returns_agree(&db, &day, &details);

    // export, CSV.
    let dir = tempfile::tempdir().unwrap();
    let csv_dir = dir.path().join("csv");
    let out = audit(
        &db,
        &[
            "export",
            "--from-day",
            &day,
            "--to-day",
            &day,
            "--out",
            csv_dir.to_str().unwrap(),
        ],
    );
    let listing = String::from_utf8_lossy(&out.stdout);
    for kind in ["games", "tickets", "settlements", "payments", "results"] {
        assert!(listing.contains(&format!("{kind}.csv")), "{listing}");
    }

    let tickets = csv_rows(&csv_dir.join("tickets.csv"));
    assert_eq!(tickets.len(), sold.len());
    let cents = |row: &BTreeMap<String, String>, column: &str| -> i64 {
        row[column]
            .parse()
            .unwrap_or_else(|_| panic!("{column}: {row:?}"))
    };
    assert_eq!(
        tickets.iter().map(|t| cents(t, "total_cents")).sum::<i64>(),
        total_sold
    );
    for t in &tickets {
        let d = &details[&t["serial"]];
        assert_eq!(t["status"], d["status"].as_str().unwrap(), "{t:?}");
        assert_eq!(t["keno_day"], day);
        assert_eq!(cents(t, "total_cents"), d["total_cents"].as_i64().unwrap());
        assert_eq!(cents(t, "won_cents"), d["won_cents"].as_i64().unwrap());
        assert_eq!(
            cents(t, "invalidation_refund_cents"),
            d["invalidated_refund_cents"].as_i64().unwrap()
        );
        assert_eq!(
            cents(t, "cancel_refund_cents"),
            d["refund_cents"].as_i64().unwrap()
        );
        assert_eq!(cents(t, "paid_cents"), d["paid_cents"].as_i64().unwrap());
        assert_eq!(t["bet_type"], d["bet_type"].as_str().unwrap());
        assert_eq!(t["schedule"], d["schedule"].as_str().unwrap());
    }
    let c = tickets.iter().find(|t| t["serial"] == cancelled).unwrap();
    assert_eq!(
        (c["status"].as_str(), cents(c, "cancel_refund_cents")),
        ("cancelled", cancel["refund_cents"].as_i64().unwrap())
    );
    assert_eq!(c["cancelled_by"], writer_id);
    let way = tickets.iter().find(|t| t["bet_type"] == "way").unwrap();
    assert_eq!(
        (way["selection"].as_str(), way["ways"].as_str()),
        ("06 45-36 80", "1/04")
    );

    let games = csv_rows(&csv_dir.join("games.csv"));
    assert_eq!(games.len(), api_games.len());
    for (g, api) in games.iter().zip(&api_games) {
        assert_eq!(cents(g, "game"), api["number"].as_i64().unwrap());
        assert_eq!(g["state"], api["state"].as_str().unwrap());
        let drawn: Vec<i64> = g["drawn"]
            .split_whitespace()
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(drawn, numbers(api), "game {}", g["game"]);
    }
    let invalidated = games.iter().find(|g| cents(g, "game") == game_c).unwrap();
    assert_eq!(
        (
            invalidated["state"].as_str(),
            invalidated["invalidation_reason"].as_str()
        ),
        ("invalidated", reason)
    );

    // What each ticket won in each game, as the API's ticket views say.
    let mut api_results = BTreeSet::new();
    for (serial, d) in &details {
        for r in d["results"].as_array().unwrap() {
            if r["prize_cents"].as_i64().unwrap() > 0 {
                api_results.insert((
                    r["game"].as_i64().unwrap(),
                    serial.clone(),
                    r["prize_cents"].as_i64().unwrap(),
                ));
            }
        }
    }
    let results: BTreeSet<(i64, String, i64)> = csv_rows(&csv_dir.join("results.csv"))
        .iter()
        .map(|r| {
            (
                cents(r, "game"),
                r["serial"].clone(),
                cents(r, "prize_cents"),
            )
        })
        .collect();
    assert!(results.len() >= 20, "20 of the covering tickets win");
    assert_eq!(results, api_results);

    let settlements = csv_rows(&csv_dir.join("settlements.csv"));
    assert_eq!(settlements.len(), 2, "games A and B are settled");
    for (row, game) in settlements.iter().zip([&game_a, &game_b]) {
        let number = game["number"].as_i64().unwrap();
        assert_eq!(cents(row, "game"), number);
        let won: i64 = api_results
            .iter()
            .filter(|(g, _, _)| *g == number)
            .map(|(_, _, p)| p)
            .sum();
        assert_eq!(cents(row, "total_prizes_cents"), won);
        // The jackpot entry fed the 6-spot pool in game A.
        assert!(row.contains_key("jackpot_6_contributions_cents"), "{row:?}");
    }

    let payments = csv_rows(&csv_dir.join("payments.csv"));
    assert_eq!(payments.len(), paid.len());
    for p in &payments {
        let api = &paid[&p["serial"]];
        assert_eq!(cents(p, "paid_cents"), api["paid_cents"].as_i64().unwrap());
        assert_eq!(p["pay_method"], api["method"].as_str().unwrap());
        assert_eq!(
            (p["paid_by"].as_str(), p["paid_by_name"].as_str()),
            (writer_id.as_str(), "JULIE")
        );
        assert_eq!(
            (p["paid_keno_day"].as_str(), p["late"].as_str()),
            (day.as_str(), "false")
        );
    }

    // export, JSON: the same rows.
    let json_dir = dir.path().join("json");
    audit(
        &db,
        &[
            "export",
            "--from-day",
            &day,
            "--format",
            "json",
            "--out",
            json_dir.to_str().unwrap(),
        ],
    );
    let tickets_json = json_rows(&json_dir.join("tickets.json"));
    assert_eq!(tickets_json.len(), sold.len());
    assert_eq!(
        tickets_json
            .iter()
            .map(|t| t["total_cents"].as_i64().unwrap())
            .sum::<i64>(),
        total_sold
    );
    let games_json = json_rows(&json_dir.join("games.json"));
    assert_eq!(games_json[0]["drawn"], api_games[0]["drawn"]);
    assert_eq!(
        json_rows(&json_dir.join("results.json")).len(),
        results.len()
    );
    assert_eq!(json_rows(&json_dir.join("payments.json")).len(), paid.len());

    // By game numbers: games A and B only.
    let (a, b) = (
        game_a["number"].as_i64().unwrap(),
        game_b["number"].as_i64().unwrap(),
    );
    let by_game = dir.path().join("ab");
    audit(
        &db,
        &[
            "export",
            "--from-game",
            &a.to_string(),
            "--to-game",
            &b.to_string(),
            "--out",
            by_game.to_str().unwrap(),
        ],
    );
    assert_eq!(csv_rows(&by_game.join("games.csv")).len(), 2);
    let sold_in_ab = sold
        .iter()
        .filter(|t| t["first_game"].as_i64().unwrap() <= b)
        .count();
    assert_eq!(csv_rows(&by_game.join("tickets.csv")).len(), sold_in_ab);

    report(
        &db,
        &day,
        dir.path(),
        &api_games,
        &sold,
        &paid,
        total_sold,
        reason,
    );
    exceptions(&db, &day, &w, &cancelled, game_c, reason);

    // The audit reads only: a database that is not there is an error, not a new database.
    let missing = dir.path().join("missing.sqlite");
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["audit", "export", "--from-day", &day, "--out"])
        .arg(dir.path().join("none"))
        .arg("--database-url")
        .arg(format!("sqlite://{}", missing.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("there is no database"));
    assert!(!missing.exists());

    // The audit wrote nothing: the record is as the server left it.
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM tickets") as usize,
        sold.len()
    );

    // Had game A been played on the Keno Day before, the winner paid today was paid late.
    let yesterday = (chrono::NaiveDate::parse_from_str(&day, "%Y-%m-%d").unwrap()
        - chrono::Days::new(1))
    .format("%Y-%m-%d")
    .to_string();
    db.execute(&format!(
        "UPDATE games SET keno_day = '{yesterday}' WHERE number = {a}"
    ));
    db.execute(&format!(
        "UPDATE tickets SET keno_day = '{yesterday}' WHERE first_game = {a}"
    ));
    let out = audit(&db, &["exceptions", "--day", &day, "--json"]);
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let late: Vec<&Value> = found["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "late_payment")
        .collect();
    assert_eq!(late.len(), 1, "{found:#}");
    assert_eq!(late[0]["serial"], winner.as_str());
    assert!(late[0]["who"]
        .as_str()
        .unwrap()
        .starts_with("JULIE (writer"));
    assert!(late[0]["what"].as_str().unwrap().contains(&format!(
        "paid {}",
        money(paid[winner]["paid_cents"].as_i64().unwrap())
    )));
    let late_dir = dir.path().join("late");
    audit(
        &db,
        &[
            "export",
            "--from-day",
            &day,
            "--out",
            late_dir.to_str().unwrap(),
        ],
    );
    let payments = csv_rows(&late_dir.join("payments.csv"));
    let p = payments.iter().find(|p| &p["serial"] == winner).unwrap();
    assert_eq!(
        (p["late"].as_str(), p["payable_keno_day"].as_str()),
        ("true", yesterday.as_str())
    );
    let pdf = dir.path().join("late.pdf");
    audit(
        &db,
        &["report", "--day", &day, "--out", pdf.to_str().unwrap()],
    );
    if let Some(text) = pdf_text(&pdf) {
        let late = text.split("Late pays").nth(1).unwrap();
        let late = late.split("7. JACKPOT").next().unwrap();
        assert!(late.contains(winner.as_str()), "{text}");
    }
}

/// Issue 35: `audit return` against the test's own sums from the API's view of each ticket:
/// stake (charged less refunds), prizes way by way (bonus prizes and jackpot shares within),
/// ways played; and its theoretical figures against keno-core's exact return.
fn returns_agree(db: &TestDb, day: &str, details: &BTreeMap<String, Value>) {
    #[derive(Default, Debug, PartialEq)]
    struct Sum {
        tickets: u64,
        ways: u64,
        stake: i64,
        prizes: i64,
    }
    let mut expected: BTreeMap<(String, u64), Sum> = BTreeMap::new();
    for d in details.values() {
        let refunds =
            d["refund_cents"].as_i64().unwrap() + d["invalidated_refund_cents"].as_i64().unwrap();
        let played: Vec<&Value> = d["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["state"] == "settled" && r["voided"] != true)
            .collect();
        let lines = d["ways"].as_array().unwrap();
        // Every ticket here plays one spot count (the way ticket: one way of four).
        assert_eq!(lines.len(), 1, "{d}");
        let spots = lines[0]["spots"].as_u64().unwrap();
        let sum = expected
            .entry((d["schedule"].as_str().unwrap().to_string(), spots))
            .or_default();
        sum.tickets += 1;
        sum.ways += lines[0]["count"].as_u64().unwrap() * played.len() as u64;
        sum.stake += d["total_cents"].as_i64().unwrap() - refunds;
        sum.prizes += played
            .iter()
            .flat_map(|r| r["ways"].as_array().unwrap())
            .map(|w| w["prize_cents"].as_i64().unwrap())
            .sum::<i64>();
    }
    let out = audit(db, &["return", "--from", day, "--json"]);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let rules = keno_core::RuleSet::act_1992();
    let mut got: BTreeMap<(String, u64), Sum> = BTreeMap::new();
    for r in &rows {
        let (schedule, spots) = (
            r["schedule"].as_str().unwrap(),
            r["spots"].as_u64().unwrap(),
        );
        let (stake, prizes) = (
            r["stake_cents"].as_i64().unwrap(),
            r["prizes_cents"].as_i64().unwrap(),
        );
        let exact = rules
            .theoretical_return(
                keno_core::ScheduleId::ALL
                    .into_iter()
                    .find(|s| s.key() == schedule)
                    .unwrap(),
                spots as u8,
            )
            .unwrap()
            .total();
        assert_eq!(
            r["theoretical"].as_f64().unwrap(),
            exact.numerator as f64 / exact.denominator as f64,
            "{r}"
        );
        if stake > 0 {
            assert_eq!(
                r["actual"].as_f64().unwrap(),
                prizes as f64 / stake as f64,
                "{r}"
            );
        }
        got.insert(
            (schedule.to_string(), spots),
            Sum {
                tickets: r["tickets"].as_u64().unwrap(),
                ways: r["ways"].as_u64().unwrap(),
                stake,
                prizes,
            },
        );
    }
    assert_eq!(got, expected);
    assert!(
        expected.values().map(|s| s.prizes).sum::<i64>() > 0,
        "a day with prizes"
    );
    // The text says the same, and what it leaves out.
    let text = String::from_utf8_lossy(&audit(db, &["return", "--from", day]).stdout).to_string();
    assert!(
        text.contains("Return to players, actual and theoretical: tickets sold on Keno Day"),
        "{text}"
    );
    assert!(
        text.contains(
            "Left out: 0 tickets with a game still to be drawn or settled, 0 tickets voided"
        ),
        "{text}"
    );
}

#[allow(clippy::too_many_arguments)]
fn report(
    db: &TestDb,
    day: &str,
    dir: &Path,
    api_games: &[Value],
    sold: &[Value],
    paid: &BTreeMap<String, Value>,
    total_sold: i64,
    reason: &str,
) {
    let pdf = dir.join("daily-report.pdf");
    audit(
        db,
        &["report", "--day", day, "--out", pdf.to_str().unwrap()],
    );
    let Some(text) = pdf_text(&pdf) else { return };
    assert!(text.contains(&format!("KENO DAY {day}")), "{text}");
    let line = |label: &str| -> String {
        text.lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label:?} in {text}"))
            .to_string()
    };
    assert!(
        line("Tickets sold:").ends_with(&format!(" {}", sold.len())),
        "{text}"
    );
    assert!(line("Sales:").contains(&money(total_sold)), "{text}");
    let numbers_of = |g: &Value| {
        numbers(g)
            .iter()
            .map(|n| format!("{n:02}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for g in api_games.iter().filter(|g| g["state"] == "settled") {
        assert!(
            text.contains(&numbers_of(g)),
            "game {}: {text}",
            g["number"]
        );
    }
    let games_line = line("Games:");
    assert!(
        games_line.contains(&format!("Games: {},", api_games.len())),
        "{games_line}"
    );
    let paid_total: i64 = paid
        .values()
        .map(|p| p["paid_cents"].as_i64().unwrap())
        .sum();
    assert!(
        line("Paid this Keno Day:").contains(&format!(
            "{} ticket(s), {}",
            paid.len(),
            money(paid_total)
        )),
        "{text}"
    );
    assert!(text.contains(reason), "{text}");
    // Issue 35: the day's return to players, as `audit return` gives it.
    assert!(
        text.contains("12. RETURN TO PLAYERS, ACTUAL AND THEORETICAL"),
        "{text}"
    );
    assert!(
        line("Games invalidated:").contains("Games invalidated: 1;"),
        "{text}"
    );
    assert!(
        line("Cancelled this Keno Day:").contains("1 ticket(s)"),
        "{text}"
    );

    // A page as an image, for the README (`KENO_REPORT_PNG=docs/daily-report.png`).
    let png = dir.join("page");
    let out = Command::new("pdftoppm")
        .args(["-png", "-r", "90", "-f", "1", "-l", "1", "-singlefile"])
        .arg(&pdf)
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let image = std::fs::read(dir.join("page.png")).unwrap();
    assert_eq!(&image[1..4], b"PNG");
    if let Some(to) = std::env::var_os("KENO_REPORT_PNG") {
        std::fs::copy(dir.join("page.png"), PathBuf::from(to)).unwrap();
    }
}

/// The PDF's text laid out as on the page (`pdftotext -layout`), or `None` where poppler-utils
/// is missing (never under CI).
fn pdf_text(pdf: &Path) -> Option<String> {
    match Command::new("pdftotext")
        .arg("-layout")
        .arg(pdf)
        .arg("-")
        .output()
    {
        Ok(out) => {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            Some(String::from_utf8_lossy(&out.stdout).to_string())
        }
        Err(_) => {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "CI must install poppler-utils (pdftotext)"
            );
            eprintln!("skipped: pdftotext (poppler-utils) is not installed");
            None
        }
    }
}

fn exceptions(db: &TestDb, day: &str, w: &World, cancelled: &str, game_c: i64, reason: &str) {
    let out = audit(db, &["exceptions", "--day", day, "--json"]);
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = found["exceptions"].as_array().unwrap();
    let of_kind =
        |kind: &str| -> Vec<&Value> { list.iter().filter(|e| e["kind"] == kind).collect() };

    let cancellation = of_kind("cancellation");
    assert_eq!(cancellation.len(), 1, "{found:#}");
    assert_eq!(cancellation[0]["serial"], cancelled);
    assert!(
        cancellation[0]["who"]
            .as_str()
            .unwrap()
            .starts_with("JULIE (writer"),
        "{found:#}"
    );
    assert!(cancellation[0]["why"].as_str().unwrap().contains("rule 8"));
    let (_, me) = w.server.get_as(&w.writer, "/api/v1/principals/me");
    assert!(cancellation[0]["what"].as_str().unwrap().contains(&format!(
        "site {} terminal {}",
        me["site"].as_str().unwrap(),
        me["terminal"].as_str().unwrap()
    )));

    let invalidation = of_kind("invalidation");
    assert_eq!(invalidation.len(), 1, "{found:#}");
    assert_eq!(invalidation[0]["game"], game_c);
    assert_eq!(invalidation[0]["why"], reason);
    assert!(invalidation[0]["who"]
        .as_str()
        .unwrap()
        .starts_with("SUPER (supervisor)"));
    // The writer and the supervisor were added today; the rule set came into force today.
    let principals: Vec<&str> = of_kind("principal")
        .iter()
        .map(|e| e["what"].as_str().unwrap())
        .collect();
    assert!(
        principals.iter().any(|p| p.contains("\"JULIE\"")),
        "{principals:?}"
    );
    assert!(
        principals.iter().any(|p| p.contains("\"SUPER\"")),
        "{principals:?}"
    );
    assert_eq!(of_kind("rule_set").len(), 1, "{found:#}");
    assert!(
        of_kind("late_payment").is_empty(),
        "paid the day they were won"
    );
    assert!(found["not_recorded"][0]
        .as_str()
        .unwrap()
        .contains("bearer token of `principal add` was disabled"));
    assert!(of_kind("claim_payment").is_empty(), "no claim was paid");

    let text =
        String::from_utf8_lossy(&audit(db, &["exceptions", "--day", day]).stdout).to_string();
    let line = text
        .lines()
        .find(|l| l.contains("cancellation") && l.contains(cancelled))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("who: JULIE") && line.contains("why: "),
        "{line}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("invalidation") && l.contains(reason) && l.contains("who: SUPER")),
        "{text}"
    );
}

/// A ball draw with rule 10's irregularities: the device spills (the draw is void and the device
/// out of service), a supervisor and an inspector return it, the draw is made again, and a
/// mis-transferred number is corrected with both approvals.
fn the_exceptions_show_a_void_draw_a_correction_and_a_returned_device(db: TestDb) {
    let w = world(&db, BALL_DEVICE);
    let s = &w.server;
    let device = db.principal("device", "BALLMACHINE-1", None);
    let inspector = db.principal("inspector", "INSPECTOR", None);
    let device_id = s.get_as(&device, "/api/v1/principals/me").1["id"]
        .as_str()
        .unwrap()
        .to_string();
    w.server.sell(
        &w.writer,
        sale(
            "t",
            json!({"type": "standard", "spots": [1, 2, 3, 4]}),
            "standard",
            300,
            1,
        ),
    );
    let (status, game) = s.post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200, "{game}");
    let game = game["number"].as_i64().unwrap();
    let ball = |n: i64| {
        let (status, b) = s.post(
            &device,
            &format!("/api/v1/games/{game}/balls"),
            json!({ "number": n }),
        );
        assert_eq!(status, 201, "{b}");
    };
    (1..=3).for_each(ball);
    let (status, f) = s.post(
        &device,
        &format!("/api/v1/games/{game}/faults"),
        json!({"kind": "spill", "reason": "balls spilled from the bowl"}),
    );
    assert_eq!(status, 201, "{f}");
    for (who, note) in [
        (&w.supervisor, "bowl refitted and tested"),
        (&inspector, "seen drawing 80 balls cleanly"),
    ] {
        let (status, d) = s.post(
            who,
            &format!("/api/v1/devices/{device_id}/return"),
            json!({ "note": note }),
        );
        assert_eq!(status, 200, "{d}");
    }
    (10..=14).for_each(ball);
    let (status, c) = s.post(
        &w.supervisor,
        &format!("/api/v1/games/{game}/corrections"),
        json!({"position": 5, "number": 15, "reason": "ball 5 reads 15 on the ball"}),
    );
    assert_eq!(status, 201, "{c}");
    let id = c["id"].as_i64().unwrap();
    let (status, c) = s.post(
        &inspector,
        &format!("/api/v1/corrections/{id}/approve"),
        Value::Null,
    );
    assert_eq!(status, 200, "{c}");
    (16..=30).for_each(ball);
    s.wait_settled(game);
    let (status, record) = s.get_as(&inspector, &format!("/api/v1/games/{game}/draw-record"));
    assert_eq!(status, 200, "{record}");
    let day = record["game"]["keno_day"].as_str().unwrap().to_string();

    let out = audit(&db, &["exceptions", "--day", &day, "--json"]);
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let of_kind = |kind: &str| -> Vec<Value> {
        found["exceptions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == kind)
            .cloned()
            .collect()
    };
    let faults = of_kind("draw_fault");
    assert_eq!(
        faults.len(),
        record["faults"].as_array().unwrap().len(),
        "{found:#}"
    );
    assert_eq!(faults[0]["why"], record["faults"][0]["reason"]);
    assert_eq!(faults[0]["game"], game);
    assert!(faults[0]["who"]
        .as_str()
        .unwrap()
        .starts_with("BALLMACHINE-1 (device)"));
    let voided = record["voided"].as_array().unwrap().len();
    assert!(
        faults[0]["what"]
            .as_str()
            .unwrap()
            .contains(&format!("{voided} ball(s) taken out")),
        "{found:#}"
    );

    let corrections = of_kind("correction");
    assert_eq!(corrections.len(), 1, "{found:#}");
    assert_eq!(record["corrections"][0]["state"], "applied");
    let what = corrections[0]["what"].as_str().unwrap();
    assert!(
        what.contains("corrected to 15") && what.contains("applied"),
        "{what}"
    );
    let who = corrections[0]["who"].as_str().unwrap();
    assert!(
        who.contains("supervisor SUPER (supervisor)")
            && who.contains("inspector INSPECTOR (inspector)"),
        "{who}"
    );
    assert!(corrections[0]["why"]
        .as_str()
        .unwrap()
        .contains("ball 5 reads 15"));

    let returned = of_kind("device_returned");
    assert_eq!(returned.len(), 1, "{found:#}");
    let why = returned[0]["why"].as_str().unwrap();
    assert!(
        why.contains("bowl refitted") && why.contains("seen drawing 80 balls"),
        "{why}"
    );
    assert!(returned[0]["who"]
        .as_str()
        .unwrap()
        .contains("INSPECTOR (inspector)"));

    // The daily report counts the void draw and shows the fault and the corrected record.
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("report.pdf");
    audit(
        &db,
        &["report", "--day", &day, "--out", pdf.to_str().unwrap()],
    );
    if let Some(text) = pdf_text(&pdf) {
        assert!(text.contains("Void draws (drawn again): 1."), "{text}");
        assert!(text.contains("balls spilled from the bowl"), "{text}");
        let drawn: Vec<String> = numbers(&record["game"])
            .iter()
            .map(|n| format!("{n:02}"))
            .collect();
        assert!(text.contains(&drawn.join(" ")), "{text}");
    }
}
