//! Issue 31, input and files: what people type is kept without control or invisible characters
//! and in Unicode NFC (names, reasons, a set's name, a hand-pay's and a claim's fields); the
//! SQLite database, its -wal and -shm and the checkpoint file are readable by the server's user
//! only; and a writer signed on at a terminal files a claim. On SQLite and PostgreSQL, over
//! real HTTP, the people and terminals made with the real command line.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use keno_core::rules::ACT_1992_TOML;
use keno_testkit::{on_both_backends, sale, Backend, Server, TestDb, ANY_PAYOUT, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    names_and_reasons_refuse_invisible_characters_and_are_kept_in_nfc,
    a_hand_pay_refuses_invisible_characters_and_is_kept_in_nfc,
    a_claims_fields_refuse_invisible_characters_and_are_kept_in_nfc,
    a_writer_signed_on_at_a_terminal_files_a_claim,
    the_database_and_checkpoint_files_are_private,
    files_others_could_read_are_made_private_at_start,
);

const SITE: &str = "735624";
const OTHER_SITE: &str = "111111";
/// "Renée" as a keyboard may type it: "e" and a combining acute accent.
const DECOMPOSED: &str = "Rene\u{0301}e";
/// "Renée" in NFC: the one "é".
const COMPOSED: &str = "Ren\u{00E9}e";

/// The answer's status, code and message.
fn refusal(answer: &(u16, Value)) -> (u16, &str, &str) {
    (
        answer.0,
        answer.1["error"].as_str().unwrap_or("-"),
        answer.1["message"].as_str().unwrap_or("-"),
    )
}

/// Refused 400 with `code`, the message naming the character `code_point` ("U+200B").
fn assert_refused(answer: &(u16, Value), code: &str, code_point: &str) {
    let (status, error, message) = refusal(answer);
    assert_eq!((status, error), (400, code), "{}", answer.1);
    assert!(message.contains(code_point), "{message}");
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

fn names_and_reasons_refuse_invisible_characters_and_are_kept_in_nfc(db: TestDb) {
    let ann = db.staff("supervisor", "ANN");
    let s = Server::start(&db, MANUAL_CLOCK);
    let sup = s.session(None, &ann);
    let add = |name: &str, reason: &str| {
        s.post(
            &sup,
            "/api/v1/staff",
            json!({"name": name, "role": "writer", "reason": reason}),
        )
    };
    // A zero-width space, a joiner, a soft hyphen, a byte order mark, a right-to-left override:
    // each makes a name that looks like another one.
    for (name, code_point) in [
        ("JU\u{200B}LIE", "U+200B"),
        ("JULIE\u{200D}", "U+200D"),
        ("JU\u{00AD}LIE", "U+00AD"),
        ("\u{FEFF}JULIE", "U+FEFF"),
        ("JULIE \u{202E}EILUJ", "U+202E"),
        ("JULIE\u{2066}", "U+2066"),
        ("JU\u{7}LIE", "U+0007"),
    ] {
        assert_refused(&add(name, "a new writer"), "invalid_name", code_point);
    }
    assert_refused(
        &add("JULIE", "hired\u{2060} today"),
        "invalid_reason",
        "U+2060",
    );
    assert_refused(&add("JULIE", "hired\ntoday"), "invalid_reason", "U+000A");
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM principals WHERE role = 'writer'"),
        0,
        "nothing refused is stored"
    );

    // The same name typed two ways is one name, stored composed, and so is the reason.
    let (status, added) = add(&format!("  {DECOMPOSED} "), &format!("{DECOMPOSED} starts"));
    assert_eq!(status, 201, "{added}");
    assert_eq!(added["name"], COMPOSED);
    let id = added["staff_id"].as_str().unwrap();
    assert_eq!(
        db.query_text(&format!(
            "SELECT name AS s FROM principals WHERE id = '{id}'"
        )),
        COMPOSED
    );
    let (status, twice) = add(COMPOSED, "the same person again");
    assert_eq!(
        (status, twice["error"].as_str()),
        (409, Some("staff_active")),
        "{twice}"
    );

    // A set's name and description, by the same rule under their own codes.
    let set = |name: &str, description: &str| {
        s.post(
            &sup,
            "/api/v1/set-bets",
            json!({"name": name, "groups": [[1, 2, 3], [10, 20, 30]], "combine": [2],
                   "amount_per_way_cents": 100, "description": description}),
        )
    };
    assert_refused(
        &set("Lucky\u{200C}Corners", "two corners"),
        "invalid_name",
        "U+200C",
    );
    assert_refused(
        &set("Lucky Corners", "two \u{200F}corners"),
        "invalid_description",
        "U+200F",
    );
    let (status, made) = set(&format!("{DECOMPOSED}'s"), &format!("{DECOMPOSED}'s set"));
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["name"], format!("{COMPOSED}'s"));
    assert_eq!(made["description"], format!("{COMPOSED}'s set"));
    verified(&db);
}

/// The settings of a server whose 1-spot pays $5,000 on $1 (a major prize, rule 1(h)), which
/// a writer may pay alone.
fn a_major_prize(db: &TestDb) -> Vec<String> {
    let rules = db.checkpoints().with_file_name("rules.toml");
    std::fs::write(
        &rules,
        ACT_1992_TOML.replace(
            "{ spots = 1, pays = { 1 = 300 } }",
            "{ spots = 1, pays = { 1 = 500000 } }",
        ),
    )
    .unwrap();
    let mut args: Vec<String> = MANUAL_CLOCK
        .iter()
        .chain(ANY_PAYOUT)
        .map(|a| a.to_string())
        .collect();
    args.extend(["--rules".to_string(), rules.display().to_string()]);
    args
}

fn a_hand_pay_refuses_invisible_characters_and_is_kept_in_nfc(db: TestDb) {
    let args = a_major_prize(&db);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let terminal = db.terminal(SITE, "03");
    let (julie, ann) = (db.staff("writer", "JULIE"), db.staff("supervisor", "ANN"));
    let s = Server::start(&db, &args);
    let writer = s.session(Some(&terminal), &julie);
    let sup = s.session(None, &ann);
    let serials: Vec<String> = (1..=80)
        .map(|n| {
            let body = sale(
                &format!("h{n}"),
                json!({"type": "standard", "spots": [n]}),
                "standard",
                100,
                1,
            );
            s.sell(&writer, body)["serial"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let game = s.close_and_settle(&sup);
    let winner = &serials[game["drawn"][0].as_u64().unwrap() as usize - 1];
    let pay = format!("/api/v1/tickets/{winner}/pay");
    let hand_pay = |field: &str, value: &str| {
        let mut h = json!({"claimant_name": "Jo Citizen", "id_kind": "driver licence",
                           "id_number": "ACT 123456", "cheque_number": "000417"});
        h[field] = json!(value);
        json!({ "hand_pay": h })
    };
    for (field, value, code_point) in [
        ("claimant_name", "Jo\u{200B} Citizen", "U+200B"),
        ("claimant_name", "Jo Citizen\u{202E}", "U+202E"),
        ("id_number", "ACT 123\u{2060}456", "U+2060"),
        ("id_number", "ACT\u{FEFF}123456", "U+FEFF"),
        ("id_kind", "driver\u{00AD}licence", "U+00AD"),
        ("cheque_number", "0004\u{200D}17", "U+200D"),
        ("id_number", "ACT\t123456", "U+0009"),
    ] {
        let answer = s.post(&writer, &pay, hand_pay(field, value));
        assert_refused(&answer, "hand_pay_required", code_point);
        assert!(
            answer.1["message"].as_str().unwrap().contains(field),
            "{}",
            answer.1
        );
    }
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM hand_pays"), 0);

    let (status, paid) = s.post(
        &writer,
        &pay,
        hand_pay("claimant_name", &format!(" {DECOMPOSED} Citizen ")),
    );
    assert_eq!(status, 200, "{paid}");
    let name = format!("{COMPOSED} Citizen");
    assert_eq!(
        db.query_text(&format!(
            "SELECT claimant_name AS s FROM hand_pays WHERE serial = '{winner}'"
        )),
        name
    );
    let t = s.get_as(&writer, &format!("/api/v1/tickets/{winner}")).1;
    assert_eq!(t["hand_pay"]["claimant_name"], name.as_str(), "{t}");
    verified(&db);
}

fn claim_form() -> Value {
    json!({
        "reason": "lost",
        "claimant_name": "Mary Citizen",
        "postal_address": "1 Example St\nCanberra ACT 2601",
        "phone": "02 6200 0000",
        "purchase_place": SITE,
        "purchase_date": chrono::Local::now().date_naive().to_string(),
        "games": 1,
        "other_details": "1 spot, $1\nbought in the morning",
    })
}

fn a_claims_fields_refuse_invisible_characters_and_are_kept_in_nfc(db: TestDb) {
    let w = keno_testkit::world(&db, MANUAL_CLOCK);
    let s = &w.server;
    for (field, value, code_point) in [
        ("claimant_name", "Mary\u{200B} Citizen", "U+200B"),
        ("claimant_name", "Mary\u{2067}Citizen", "U+2067"),
        ("postal_address", "1 Example St\n\u{202D}Canberra", "U+202D"),
        ("phone", "02\u{FEFF}6200 0000", "U+FEFF"),
        ("purchase_place", "7356\u{2060}24", "U+2060"),
        ("other_details", "1 spot\u{200C}, $1", "U+200C"),
        ("claimant_name", "Mary\u{1B}[2JCitizen", "U+001B"),
    ] {
        let mut form = claim_form();
        form[field] = json!(value);
        let answer = s.post(&w.supervisor, "/api/v1/claims", form);
        assert_refused(&answer, "invalid_claim", code_point);
    }
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM claims"), 0);

    let mut form = claim_form();
    form["claimant_name"] = json!(format!("{DECOMPOSED} Citizen"));
    form["postal_address"] = json!(format!("1 {DECOMPOSED} St \r\nCanberra ACT 2601\n"));
    let (status, claim) = s.post(&w.supervisor, "/api/v1/claims", form);
    assert_eq!(status, 201, "{claim}");
    assert_eq!(claim["claimant_name"], format!("{COMPOSED} Citizen"));
    // An address keeps its lines.
    assert_eq!(
        claim["postal_address"],
        format!("1 {COMPOSED} St\nCanberra ACT 2601")
    );
    assert_eq!(claim["other_details"], "1 spot, $1\nbought in the morning");
    let id = claim["id"].as_i64().unwrap();
    assert_eq!(
        db.query_text(&format!(
            "SELECT claimant_name AS s FROM claims WHERE id = {id}"
        )),
        format!("{COMPOSED} Citizen")
    );
    verified(&db);
}

fn a_writer_signed_on_at_a_terminal_files_a_claim(db: TestDb) {
    let (here, there) = (db.terminal(SITE, "03"), db.terminal(OTHER_SITE, "01"));
    let (julie, kim, ann) = (
        db.staff("writer", "JULIE"),
        db.staff("writer", "KIM"),
        db.staff("supervisor", "ANN"),
    );
    let s = Server::start(&db, MANUAL_CLOCK);
    let writer = s.session(Some(&here), &julie);
    let (status, claim) = s.post(&writer, "/api/v1/claims", claim_form());
    assert_eq!(status, 201, "a writer at a terminal files a claim: {claim}");
    assert_eq!(claim["recorded_by"], julie.staff_id.as_str());
    let id = claim["id"].as_i64().unwrap();
    assert_eq!(
        db.query_text(&format!("SELECT site AS s FROM claims WHERE id = {id}")),
        SITE,
        "the claim is the session's site's"
    );
    // She sees it (and its form) at her site; a writer at another site does not.
    let path = format!("/api/v1/claims/{id}");
    assert_eq!(s.get_as(&writer, &path).0, 200);
    assert_eq!(s.get_as(&writer, &format!("{path}/form.pdf")).0, 200);
    let elsewhere = s.session(Some(&there), &kim);
    assert_eq!(s.get_as(&elsewhere, &path).0, 403);
    // Another writer at her site's terminal sees it: it is the site's, not hers.
    s.post(&writer, "/api/v1/sessions/current/end", Value::Null);
    let kim_here = s.session(Some(&here), &kim);
    assert_eq!(s.get_as(&kim_here, &path).0, 200);
    // A supervisor (signed on without a terminal) files one too.
    let sup = s.session(None, &ann);
    let (status, filed) = s.post(&sup, "/api/v1/claims", claim_form());
    assert_eq!(status, 201, "{filed}");
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM claims"), 2);
    verified(&db);
}

/// Each file's name and its mode in octal ("600"), to compare all at once.
fn modes(paths: &[PathBuf]) -> Vec<(String, String)> {
    paths
        .iter()
        .map(|path| {
            let mode = std::fs::metadata(path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .permissions()
                .mode();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, format!("{:o}", mode & 0o777))
        })
        .collect()
}

fn private(paths: &[PathBuf], mode: &str) -> Vec<(String, String)> {
    modes(paths)
        .into_iter()
        .map(|(name, _)| (name, mode.to_string()))
        .collect()
}

/// `keno.sqlite` and the file SQLite keeps beside it, `keno.sqlite-wal`.
fn beside(database: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", database.display()))
}

/// Waits for the leader's first checkpoint to reach the file.
fn checkpoint_file(s: &Server, db: &TestDb) -> PathBuf {
    let file = db.checkpoints();
    s.wait_for("the first checkpoint in the file", || {
        std::fs::metadata(&file).is_ok_and(|m| m.len() > 0)
    });
    file
}

fn the_database_and_checkpoint_files_are_private(mut db: TestDb) {
    let data = db.checkpoints().with_file_name("data");
    let database = data.join("keno.sqlite");
    if db.backend == Backend::Sqlite {
        // A fresh database in a folder the server makes.
        db.url = format!("sqlite://{}", database.display());
    }
    let s = Server::start(&db, MANUAL_CLOCK);
    let mut files = vec![checkpoint_file(&s, &db)];
    let mut folders = Vec::new();
    if db.backend == Backend::Sqlite {
        let w = db.principal("writer", "JULIE", Some((SITE, "03")));
        s.sell(
            &w,
            sale(
                "p1",
                json!({"type": "standard", "spots": [7]}),
                "standard",
                100,
                1,
            ),
        );
        files.extend(["", "-wal", "-shm"].map(|suffix| beside(&database, suffix)));
        folders.push(data);
    }
    let mut wanted = private(&files, "600");
    wanted.extend(private(&folders, "700"));
    files.extend(folders);
    assert_eq!(modes(&files), wanted);
}

fn files_others_could_read_are_made_private_at_start(db: TestDb) {
    let mut files = vec![db.checkpoints()];
    if let Some(database) = db.url.strip_prefix("sqlite://").map(PathBuf::from) {
        // An empty file is a new SQLite database, as one made by hand would be; a -wal left
        // from before, as after a crash.
        files.extend([beside(&database, "-wal"), database]);
    }
    for path in &files {
        std::fs::write(path, b"").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let (s, output) = Server::start_traced(&db, MANUAL_CLOCK);
    assert_eq!(modes(&files), private(&files, "600"));
    let said = output.text();
    let told: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("made it 0600"))
        .collect();
    assert_eq!(
        told.len(),
        files.len(),
        "the log says what was tightened: {told:#?}"
    );
    drop(s);
}
