//! The server's own failures (issue 33): a drawer that cannot settle a game is an episode of
//! failure the console shows while it lasts, the trail records as begun and, a quiet spell
//! after the last failure, as ended, and the day's exceptions list; mended, the game settles.

use keno_testkit::{on_both_backends, sale, Server, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(a_drawer_that_fails_is_shown_recorded_and_ended,);

/// The console's banner of failures, if shown.
const INCIDENTS: &str = r#"
    const box = document.querySelector('#incidents');
    return { banner: box && !box.hidden ? box.textContent : null,
             signedOn: !document.querySelector('#frame').hidden };
"#;

fn a_drawer_that_fails_is_shown_recorded_and_ended(db: TestDb) {
    let args = [MANUAL_CLOCK, &["--incident-quiet", "3"]].concat();
    let w = keno_testkit::world(&db, &args);
    let ticket = w.server.sell(
        &w.writer,
        sale(
            "one",
            json!({"type": "standard", "spots": [1, 2]}),
            "standard",
            100,
            1,
        ),
    );
    let serial = ticket["serial"].as_str().unwrap().to_string();
    let groups = db.query_text(&format!(
        "SELECT groups_json AS s FROM tickets WHERE serial = '{serial}'"
    ));
    // A ticket the settlement cannot read: the drawer fails on the game, again and again.
    db.execute(&format!(
        "UPDATE tickets SET groups_json = 'unreadable' WHERE serial = '{serial}'"
    ));
    let (status, game) = w
        .server
        .post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200, "{game}");
    let number = game["number"].as_i64().unwrap();
    let mut open = Value::Null;
    w.server.wait_for("the drawer's failure", || {
        open = w.server.get_as(&w.supervisor, "/api/v1/incidents").1;
        open["open"][0]["fault"] == "drawer"
    });
    assert_eq!(
        open["open"][0]["words"], "the drawer failed to draw or settle a game",
        "{open}"
    );
    assert!(open["open"][0]["count"].as_u64() >= Some(1), "{open}");
    assert!(
        !open["open"][0]["detail"].as_str().unwrap().is_empty(),
        "{open}"
    );
    // Not for writers; nor for anyone signed on to nothing.
    assert_eq!(w.server.get_as(&w.writer, "/api/v1/incidents").0, 403);
    assert_eq!(w.server.get("/api/v1/incidents").0, 401);
    w.server.wait_for("its beginning in the trail", || {
        db.query_i64("SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'system_fault' AND subject = 'drawer'") == 1
    });
    console_shows_it(&w.server, &w.supervisor);

    // Mended: the game settles, and a quiet spell later the episode ends, once.
    db.execute(&format!(
        "UPDATE tickets SET groups_json = '{groups}' WHERE serial = '{serial}'"
    ));
    w.server.wait_settled(number);
    w.server.wait_for("its end in the trail", || {
        db.query_i64("SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'system_fault_ended' AND subject = 'drawer'") == 1
    });
    let (_, open) = w.server.get_as(&w.supervisor, "/api/v1/incidents");
    assert_eq!(open["open"], json!([]), "{open}");
    let ended: Value = serde_json::from_str(
        &db.query_text("SELECT payload AS s FROM audit_log WHERE kind = 'system_fault_ended'"),
    )
    .unwrap();
    assert!(ended["count"].as_u64() >= Some(1), "{ended}");
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'system_fault'"),
        1,
        "one episode, however many failures"
    );

    // Among the day's exceptions, both.
    let day = db.query_text(&format!(
        "SELECT keno_day AS s FROM tickets WHERE serial = '{serial}'"
    ));
    let day = day.as_str();
    let (status, review) = w.server.get_as(
        &w.supervisor,
        &format!("/api/v1/audit/exceptions?day={day}"),
    );
    assert_eq!(status, 200, "{review}");
    let said: Vec<&str> = review["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "system")
        .filter_map(|e| e["what"].as_str())
        .collect();
    assert!(
        said.contains(&"failure: the drawer failed to draw or settle a game"),
        "{review}"
    );
    assert!(
        said.iter()
            .any(|w| w.starts_with("failure over: the drawer failed to draw or settle a game")),
        "{review}"
    );
    let out = keno_testkit::audit(&db, &["verify"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The console, signed on as the supervisor, shows the failure above the page.
fn console_shows_it(s: &Server, supervisor: &str) {
    let Some(browser) = keno_testkit::browser::Browser::start() else {
        return;
    };
    browser.resize(1280, 720);
    browser.goto(&format!("{}/console", s.base));
    browser.click("#sign-on details summary");
    browser.type_into("#token", supervisor);
    browser.click("#sign-on-go");
    let seen = browser.wait_for("the banner of failures", INCIDENTS, |st| {
        st["signedOn"] == true && st["banner"].is_string()
    });
    let banner = seen["banner"].as_str().unwrap();
    assert!(
        banner.contains("is failing")
            && banner.contains("The drawer failed to draw or settle a game"),
        "{banner}"
    );
    keno_testkit::browser::keep_screenshot(&browser.screenshot(), "console-incident.png");
}

/// The database out of reach (PostgreSQL refusing every connection, the server's own cut):
/// requests fail 503 meanwhile (signing on needs the database too, so nobody reads the
/// incidents then); once it is back the episode of `database` is open on the console's feed,
/// and the trail records it begun and, a quiet spell later, ended.
#[test]
fn a_database_out_of_reach_is_recorded_once_it_is_back() {
    let Some(db) = TestDb::new(keno_testkit::Backend::Postgres) else {
        return;
    };
    let supervisor = db.principal("supervisor", "SUPER", None);
    let args = [MANUAL_CLOCK, &["--incident-quiet", "10"]].concat();
    let s = Server::start(&db, &args);
    let name = db.url.rsplit('/').next().unwrap().to_string();
    let admin = std::env::var("KENO_TEST_POSTGRES_URL").unwrap();
    let run = |sql: &str| {
        keno_testkit::Session::open(&admin)
            .unwrap()
            .execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    };
    run(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS false"));
    run(&format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
    ));
    let (status, e) = s.get("/api/v1/games/current");
    assert_eq!(status, 503, "{e}");
    run(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true"));
    let (status, open) = s.get_as(&supervisor, "/api/v1/incidents");
    assert_eq!(status, 200, "{open}");
    assert_eq!(open["open"][0]["fault"], "database", "{open}");
    assert_eq!(
        open["open"][0]["words"], "the database could not be reached",
        "{open}"
    );
    s.wait_for("the end of the episode in the trail", || {
        db.query_i64(
            "SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'system_fault_ended' \
             AND subject = 'database'",
        ) == 1
    });
    assert_eq!(
        db.query_i64(
            "SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'system_fault' AND subject = 'database'"
        ),
        1
    );
    assert_eq!(s.get("/api/v1/games/current").0, 200);
}
