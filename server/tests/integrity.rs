//! Issue 33, software that proves itself: `keno-server integrity` and `GET /api/v1/integrity`
//! give each component's SHA-256 and HMAC-SHA256 under an inspector's seed, which the test
//! checks with its own HMAC of the same files; an approved manifest is checked at start (a
//! difference refuses to start) and every interval (a difference suspends the system).

use std::path::Path;
use std::process::Command;

use hmac::{Hmac, Mac};
use keno_testkit::{on_both_backends, sale, Server, TestDb, BALL_DEVICE, MANUAL_CLOCK};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

on_both_backends!(
    a_changed_rule_set_suspends_a_running_server_and_is_refused_at_start,
    a_page_not_as_approved_is_refused_at_start,
    the_trail_changed_under_a_running_server_suspends_it,
    an_entry_changed_and_the_triggers_put_back_is_found_by_the_walk,
    an_rng_that_fails_suspends_and_nothing_is_drawn,
    a_game_left_undrawn_suspends,
);

const SEED: &str = "5eed0f1c0ffee0ddba11";

fn hmac_hex(seed: &[u8], bytes: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(seed).unwrap();
    mac.update(bytes);
    hex::encode(mac.finalize().into_bytes())
}

/// The repository's file at `path` (relative to the workspace).
fn source(path: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).unwrap()
}

/// `migrations/{backend}` as `sha256sum` lists it, in byte order of the path.
fn listing(backend: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
    let mut files = Vec::new();
    let mut folders = vec![root.join(backend)];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let name = path.strip_prefix(&root).unwrap().display().to_string();
                files.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    files
        .iter()
        .map(|(name, bytes)| format!("{}  {name}\n", hex::encode(Sha256::digest(bytes))))
        .collect()
}

fn component<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no component {name} in {report}"))
}

/// Every component of the report is the test's own digest of the same bytes.
fn check_report(report: &Value, rules: &Path) {
    let seed = hex::decode(SEED).unwrap();
    let expect = |name: &str, bytes: &[u8]| {
        let c = component(report, name);
        assert_eq!(c["sha256"], hex::encode(Sha256::digest(bytes)), "{name}");
        assert_eq!(c["hmac_sha256"], hmac_hex(&seed, bytes), "{name}");
    };
    expect(
        "binary",
        &std::fs::read(env!("CARGO_BIN_EXE_keno-server")).unwrap(),
    );
    expect("rules", &std::fs::read(rules).unwrap());
    for page in [
        "server/src/console/console.js",
        "server/src/console/console.html",
        "server/src/display/board.js",
        "server/src/display/check.html",
    ] {
        expect(page, &source(page));
    }
    for backend in ["sqlite", "postgres"] {
        expect(
            &format!("migrations/{backend}"),
            listing(backend).as_bytes(),
        );
    }
    assert_eq!(report["seed"], SEED);
}

/// The command line and the endpoint give the same digests, which are the test's own.
#[test]
fn integrity_gives_each_component_its_digest_and_the_seeds_hmac() {
    let dir = tempfile::tempdir().unwrap();
    let rules = keno_testkit::special3_rules(dir.path(), 2000);
    let rules = Path::new(&rules);
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["integrity", "--seed", SEED, "--json", "--rules"])
        .arg(rules)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    check_report(&report, rules);
    assert!(report["release"]
        .as_str()
        .unwrap()
        .starts_with("keno-server "));
    // For people: each component, its SHA-256 and HMAC on lines of their own.
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["integrity", "--seed", SEED, "--rules"])
        .arg(rules)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let rules_sha = component(&report, "rules")["sha256"].as_str().unwrap();
    assert!(
        text.contains(&format!("  SHA-256      {rules_sha}")),
        "{text}"
    );
    assert!(
        text.lines()
            .filter(|l| l.starts_with("  "))
            .all(|l| l.len() <= 80),
        "{text}"
    );
    assert!(text.contains("\nrules: "), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["integrity", "--seed", "not-hex"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    let db = TestDb::new(keno_testkit::Backend::Sqlite).unwrap();
    let inspector = db.principal("inspector", "INES", None);
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let rules_arg = rules.to_str().unwrap();
    let s = Server::start(&db, &[MANUAL_CLOCK, &["--rules", rules_arg]].concat());
    let (status, report) = s.get_as(&inspector, &format!("/api/v1/integrity?seed={SEED}"));
    assert_eq!(status, 200, "{report}");
    check_report(&report, rules);
    let (status, body) = s.get_as(&inspector, "/api/v1/integrity?seed=zz");
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request")),
        "{body}"
    );
    assert_eq!(s.get_as(&writer, "/api/v1/integrity").0, 403);
}

/// `integrity approve` with the test's key; the server started against it.
fn approve(dir: &Path, rules: &str) -> (String, String) {
    let manifest = dir.join("approved.json");
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .args(["integrity", "approve", "--key"])
        .arg(dir.join("regulator.key"))
        .arg("--out")
        .arg(&manifest)
        .args(["--rules", rules])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = serde_json::from_str::<Value>(&std::fs::read_to_string(&manifest).unwrap()).unwrap()
        ["public_key"]
        .as_str()
        .unwrap()
        .to_string();
    (manifest.display().to_string(), key)
}

/// `serve` on the test's database with `args`, expected to refuse: what it said.
fn refused_start(db: &TestDb, args: &[&str]) -> String {
    let out = db.serve_command(args).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        !out.status.success(),
        "served software not as approved:\n{said}"
    );
    said
}

fn checks_in_the_trail(db: &TestDb) -> i64 {
    db.query_i64("SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'integrity_checked'")
}

/// A server started with the approved manifest records its check; the rule-set file changed
/// on disk while it runs suspends the system within two intervals (sales refused, the cause
/// the rules); started again on the changed file, it refuses to start.
fn a_changed_rule_set_suspends_a_running_server_and_is_refused_at_start(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let rules = keno_testkit::special3_rules(dir.path(), 2000);
    let (manifest, key) = approve(dir.path(), &rules);
    let args = [
        MANUAL_CLOCK,
        &[
            "--rules",
            &rules,
            "--approved-manifest",
            &manifest,
            "--manifest-public-key",
            &key,
            "--integrity-interval",
            "2",
        ],
    ]
    .concat();
    let w = keno_testkit::world(&db, &args);
    assert_eq!(checks_in_the_trail(&db), 1, "the check at start");
    let body = |id: &str| {
        sale(
            id,
            json!({"type": "standard", "spots": [1, 2]}),
            "standard",
            100,
            1,
        )
    };
    w.server.sell(&w.writer, body("before"));
    w.server
        .wait_for("a check every interval", || checks_in_the_trail(&db) >= 3);

    let checked_before = checks_in_the_trail(&db);
    let text = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(&rules, text.replace("pays = { 3 = 500", "pays = { 3 = 700")).unwrap();
    w.server.wait_for("the suspension", || {
        w.server.get("/api/v1/suspension").1["suspended"] == true
    });
    // Found by one of the next two checks (counted in the trail, not timed).
    let first_found = db.query_i64(
        "SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'integrity_checked' AND seq <= \
         (SELECT MIN(seq) FROM audit_log WHERE kind = 'integrity_checked' \
          AND payload LIKE '%\"as_approved\":false%')",
    );
    assert!(
        first_found <= checked_before + 2,
        "found by check {first_found}, {checked_before} made before the change"
    );
    let (_, standing) = w.server.get("/api/v1/suspension");
    assert_eq!(standing["in_force"][0]["cause"], "rule_set", "{standing}");
    let detail = standing["in_force"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("rules ("), "{detail}");
    let (status, refused) = w.server.post(&w.writer, "/api/v1/tickets", body("after"));
    assert_eq!(
        (status, refused["error"].as_str()),
        (503, Some("suspended")),
        "{refused}"
    );
    let found = db.query_text(
        "SELECT payload AS s FROM audit_log WHERE kind = 'integrity_checked' ORDER BY seq DESC LIMIT 1",
    );
    assert!(found.contains("\"as_approved\":false"), "{found}");
    drop(w);

    let said = refused_start(&db, &args);
    assert!(said.contains("the software is not as approved"), "{said}");
    assert!(said.contains("rules ("), "{said}");
}

/// The manifest of a release whose console page differs from this binary's (signed by the
/// regulator's key, as the approved release would be): the server refuses to start, naming
/// the page, and the check is in the trail. A manifest signed by another key is refused too.
fn a_page_not_as_approved_is_refused_at_start(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let rules = keno_testkit::special3_rules(dir.path(), 2000);
    let (manifest, key) = approve(dir.path(), &rules);
    // Another release's page: the manifest rewritten and signed again with the same key.
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let page = "server/src/console/console.js";
    for c in m["approved"]["components"].as_array_mut().unwrap() {
        if c["name"] == page {
            c["sha256"] = json!("0".repeat(64));
        }
    }
    let approved = &m["approved"];
    // The bytes signed: the approved part with its fields in the server's order.
    let signed = format!(
        "keno-approved-manifest/1\n{{\"release\":{},\"made_at\":{},\"components\":{}}}",
        approved["release"], approved["made_at"], approved["components"]
    );
    let seed = std::fs::read_to_string(dir.path().join("regulator.key")).unwrap();
    let seed: [u8; 32] = hex::decode(seed.lines().last().unwrap().trim())
        .unwrap()
        .try_into()
        .unwrap();
    use ed25519_dalek::Signer;
    let signing = ed25519_dalek::SigningKey::from_bytes(&seed);
    m["signature"] = json!(hex::encode(signing.sign(signed.as_bytes()).to_bytes()));
    let other = dir.path().join("other.json");
    std::fs::write(&other, m.to_string()).unwrap();
    db.principal("writer", "JULIE", Some(("735624", "03")));
    let args = |manifest: &str, key: &str| -> Vec<String> {
        [
            "--rules",
            &rules,
            "--approved-manifest",
            manifest,
            "--manifest-public-key",
            key,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let given = args(other.to_str().unwrap(), &key);
    let given: Vec<&str> = given.iter().map(String::as_str).collect();
    let said = refused_start(&db, &[MANUAL_CLOCK, &given].concat());
    assert!(said.contains("the software is not as approved"), "{said}");
    assert!(
        said.contains(&format!("{page} (compiled in): its SHA-256 is")),
        "{said}"
    );
    assert_eq!(checks_in_the_trail(&db), 1);
    // Signed by someone else: not a manifest the server trusts.
    let stranger = hex::encode(
        ed25519_dalek::SigningKey::from_bytes(&[7; 32])
            .verifying_key()
            .as_bytes(),
    );
    let given = args(&manifest, &stranger);
    let given: Vec<&str> = given.iter().map(String::as_str).collect();
    let said = refused_start(&db, &[MANUAL_CLOCK, &given].concat());
    assert!(said.contains("not signed by the key given"), "{said}");
}

/// What a writer with the database in hand does first.
fn drop_trail_triggers(db: &TestDb) {
    match db.backend {
        keno_testkit::Backend::Sqlite => {
            for trigger in ["audit_log_no_update", "audit_log_no_delete"] {
                db.execute(&format!("DROP TRIGGER {trigger}"));
            }
        }
        keno_testkit::Backend::Postgres => {
            db.execute("DROP TRIGGER audit_log_no_change ON audit_log");
        }
    }
}

/// The triggers dropped and a sale's entry changed under a running server (its price halved in
/// the trail): the server's look at its trail finds it within two intervals and suspends the
/// system, with no manifest needed.
fn the_trail_changed_under_a_running_server_suspends_it(db: TestDb) {
    let args = [MANUAL_CLOCK, &["--integrity-interval", "2"]].concat();
    let w = keno_testkit::world(&db, &args);
    let body = |id: &str| {
        sale(
            id,
            json!({"type": "standard", "spots": [1, 2]}),
            "standard",
            200,
            1,
        )
    };
    let serial = w.server.sell(&w.writer, body("sold"))["serial"]
        .as_str()
        .unwrap()
        .to_string();
    // Two looks pass with the trail whole.
    std::thread::sleep(std::time::Duration::from_secs(5));
    assert_eq!(w.server.get("/api/v1/suspension").1["suspended"], false);
    drop_trail_triggers(&db);
    let changed = db.execute(&format!(
        "UPDATE audit_log SET payload = REPLACE(payload, '200', '100') \
         WHERE kind = 'ticket_sold' AND subject = '{serial}'"
    ));
    assert_eq!(changed, 1);
    w.server.wait_for("the suspension", || {
        w.server.get("/api/v1/suspension").1["suspended"] == true
    });
    let (_, standing) = w.server.get("/api/v1/suspension");
    assert_eq!(standing["in_force"][0]["cause"], "trail", "{standing}");
    let detail = standing["in_force"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("audit_log_no_"), "{detail}");
    let (status, refused) = w.server.post(&w.writer, "/api/v1/tickets", body("after"));
    assert_eq!(
        (status, refused["error"].as_str()),
        (503, Some("suspended")),
        "{refused}"
    );
}

/// The triggers put back as they were.
fn restore_trail_triggers(db: &TestDb) {
    match db.backend {
        keno_testkit::Backend::Sqlite => {
            for (name, act) in [
                ("audit_log_no_update", "UPDATE"),
                ("audit_log_no_delete", "DELETE"),
            ] {
                db.execute(&format!(
                    "CREATE TRIGGER {name} BEFORE {act} ON audit_log \
                     BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;"
                ));
            }
        }
        keno_testkit::Backend::Postgres => {
            db.execute(
                "CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log \
                 FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()",
            );
        }
    }
}

/// A careful writer drops the triggers, changes a sale's entry and puts the triggers back
/// between two looks: the walk of the chain since the look before the last finds the entry
/// whose hash no longer follows, and the system is suspended naming it.
fn an_entry_changed_and_the_triggers_put_back_is_found_by_the_walk(db: TestDb) {
    let args = [MANUAL_CLOCK, &["--integrity-interval", "2"]].concat();
    let w = keno_testkit::world(&db, &args);
    let body = |id: &str| {
        sale(
            id,
            json!({"type": "standard", "spots": [1, 2]}),
            "standard",
            200,
            1,
        )
    };
    let serial = w.server.sell(&w.writer, body("sold"))["serial"]
        .as_str()
        .unwrap()
        .to_string();
    drop_trail_triggers(&db);
    let changed = db.execute(&format!(
        "UPDATE audit_log SET payload = REPLACE(payload, '200', '100') \
         WHERE kind = 'ticket_sold' AND subject = '{serial}'"
    ));
    assert_eq!(changed, 1);
    restore_trail_triggers(&db);
    w.server.wait_for("the suspension", || {
        w.server.get("/api/v1/suspension").1["suspended"] == true
    });
    let (_, standing) = w.server.get("/api/v1/suspension");
    assert_eq!(standing["in_force"][0]["cause"], "trail", "{standing}");
    let detail = standing["in_force"][0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("(ticket_sold {serial}): an entry was changed")),
        "{detail}"
    );
}

/// The fault harness makes the RNG fail as a game is drawn: nothing is drawn from anything
/// else, the system is suspended for the RNG, and the game stays closed with no number until
/// the RNG works again and two people resume; then it is drawn and settled.
fn an_rng_that_fails_suspends_and_nothing_is_drawn(db: TestDb) {
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let inspector = db.principal("inspector", "INES", None);
    let dir = tempfile::tempdir().unwrap();
    let fails = dir.path().join("rng-fails");
    let fails_env = fails.display().to_string();
    let s = Server::start_with(
        &db,
        "127.0.0.1:0",
        MANUAL_CLOCK,
        &[("KENO_FAULT_RNG_FILE", fails_env.as_str())],
    );
    let body = sale(
        "before",
        json!({"type": "standard", "spots": [1, 2]}),
        "standard",
        100,
        1,
    );
    let before = s.sell(&writer, body.clone());
    let (_, game) = s.get("/api/v1/games/current");
    let number = game["number"].as_i64().unwrap();
    std::fs::write(&fails, "").unwrap();
    let (status, _) = s.post(&supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200);
    s.wait_for("the suspension", || {
        s.get("/api/v1/suspension").1["suspended"] == true
    });
    let (_, standing) = s.get("/api/v1/suspension");
    assert_eq!(standing["in_force"][0]["cause"], "rng", "{standing}");
    let detail = standing["in_force"][0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!(
            "drawing game {number}: the fault harness made the RNG fail"
        )),
        "{detail}"
    );
    // A sale sent again (its answer lost) gets the ticket it sold; a new one is refused.
    let (status, again) = s.post(&writer, "/api/v1/tickets", body);
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["serial"], before["serial"], "{again}");
    let new = sale(
        "after",
        json!({"type": "standard", "spots": [1, 2]}),
        "standard",
        100,
        1,
    );
    let (status, refused) = s.post(&writer, "/api/v1/tickets", new);
    assert_eq!(status, 503, "{refused}");
    assert_eq!(refused["error"], "suspended", "{refused}");
    let (_, closed) = s.get(&format!("/api/v1/games/{number}"));
    assert_eq!(closed["state"], "closed", "{closed}");
    assert_eq!(closed["drawn"], json!([]), "{closed}");
    // Mended, then resumed by two people: the game is drawn.
    std::fs::remove_file(&fails).unwrap();
    let id = standing["in_force"][0]["id"].as_i64().unwrap();
    for (who, note) in [
        (&supervisor, "RNG host rebooted"),
        (&inspector, "RNG tested after reboot"),
    ] {
        let (status, body) = s.post(
            who,
            &format!("/api/v1/suspension/{id}/resume"),
            json!({ "note": note }),
        );
        assert_eq!(status, 200, "{body}");
    }
    let settled = s.wait_settled(number);
    assert_eq!(settled["drawn"].as_array().unwrap().len(), 20, "{settled}");
}

/// A ball device that never sends the closed game's balls: past `--undrawn-limit` the draw
/// mechanism is taken to have failed and the system is suspended, sales refused.
fn a_game_left_undrawn_suspends(db: TestDb) {
    let args = [BALL_DEVICE, &["--undrawn-limit", "2"]].concat();
    let w = keno_testkit::world(&db, &args);
    let body = |id: &str| {
        sale(
            id,
            json!({"type": "standard", "spots": [1, 2]}),
            "standard",
            100,
            1,
        )
    };
    w.server.sell(&w.writer, body("before"));
    let (status, closed) = w
        .server
        .post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200, "{closed}");
    let number = closed["number"].as_i64().unwrap();
    w.server.wait_for("the suspension", || {
        w.server.get("/api/v1/suspension").1["suspended"] == true
    });
    let (_, standing) = w.server.get("/api/v1/suspension");
    assert_eq!(
        standing["in_force"][0]["cause"], "undrawn_game",
        "{standing}"
    );
    let detail = standing["in_force"][0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!("game {number} closed at ")),
        "{detail}"
    );
    let (status, refused) = w.server.post(&w.writer, "/api/v1/tickets", body("after"));
    assert_eq!(
        (status, refused["error"].as_str()),
        (503, Some("suspended")),
        "{refused}"
    );
    // Ended by editing the database, without the keys: suspended again, for the trail.
    let id = standing["in_force"][0]["id"].as_i64().unwrap();
    db.execute(&format!(
        "UPDATE suspensions SET state = 'resumed', resumed_at = 1 WHERE id = {id}"
    ));
    w.server.wait_for("the suspension for the trail", || {
        w.server.get("/api/v1/suspension").1["in_force"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["cause"] == "trail"))
    });
    let (_, standing) = w.server.get("/api/v1/suspension");
    assert_eq!(standing["suspended"], true, "{standing}");
    let detail = standing["in_force"][0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!(
            "suspension {id} was ended in the database without"
        )),
        "{detail}"
    );
}
