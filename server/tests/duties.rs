//! Segregation of duties (issue 31): who manages whom (a supervisor writers; an administrator
//! supervisors, inspectors and auditors; the command line anyone; no one themselves), and no
//! one takes two parts in one decision, "the same person" being the same name under any staff
//! ID. On SQLite and PostgreSQL, over real HTTP, people made with the real command line.

use keno_testkit::{
    cover_the_board, drawn_serials, on_both_backends, sale, world, Server, TestDb, MANUAL_CLOCK,
};
use serde_json::{json, Value};

on_both_backends!(
    a_supervisor_manages_writers_and_an_administrator_the_oversight,
    no_one_grants_an_override_to_themselves_under_another_staff_id,
    who_files_approves_and_pays_a_claim_are_three_people,
);

fn code(answer: &(u16, Value)) -> (u16, Option<&str>) {
    (answer.0, answer.1["error"].as_str())
}

fn a_supervisor_manages_writers_and_an_administrator_the_oversight(db: TestDb) {
    let ann = db.staff("supervisor", "ANN");
    let ann_writes = db.staff("writer", "ANN");
    let ian = db.staff("inspector", "IAN");
    let ada = db.staff("administrator", "ADA");
    let julie = db.staff("writer", "JULIE");
    let s = Server::start(&db, MANUAL_CLOCK);
    let sup = s.session(None, &ann);
    let admin = s.session(None, &ada);
    let add = |token: &str, role: &str, name: &str| {
        s.post(
            token,
            "/api/v1/staff",
            json!({"role": role, "name": name, "reason": "new staff"}),
        )
    };

    // A supervisor manages writers only.
    let (status, added) = add(&sup, "writer", "OMAR");
    assert_eq!(status, 201, "{added}");
    for role in ["supervisor", "inspector", "auditor", "administrator"] {
        assert_eq!(
            code(&add(&sup, role, "MALLORY")),
            (403, Some("not_your_duty")),
            "{role}"
        );
    }
    let reset_ian = s.post(
        &sup,
        &format!("/api/v1/staff/{}/reset", ian.staff_id),
        json!({"reason": "take over the inspector"}),
    );
    assert_eq!(
        code(&reset_ian),
        (403, Some("not_your_duty")),
        "{reset_ian:?}"
    );
    assert!(reset_ian.1.get("secret").is_none() && reset_ian.1.get("totp_secret").is_none());
    // IAN's secret stands: he signs on with it.
    assert_eq!(s.sign_on(None, &ian).0, 201);
    let path = |id: &str, act: &str| format!("/api/v1/staff/{id}/{act}");
    let why = json!({"reason": "a test"});
    assert_eq!(
        s.post(&sup, &path(&julie.staff_id, "disable"), why.clone())
            .0,
        200
    );
    assert_eq!(
        s.post(&sup, &path(&julie.staff_id, "enable"), why.clone())
            .0,
        200
    );
    // Not herself, under her writer's staff ID either.
    assert_eq!(
        code(&s.post(&sup, &path(&ann_writes.staff_id, "reset"), why.clone())),
        (403, Some("not_your_duty"))
    );

    // An administrator manages supervisors, inspectors and auditors; the new secret is shown
    // to the administrator, who made the change.
    let (status, added) = add(&admin, "inspector", "INA");
    assert_eq!(status, 201, "{added}");
    assert!(added["totp_secret"].is_string(), "{added}");
    let (status, reset) = s.post(&admin, &path(&ann.staff_id, "reset"), why.clone());
    assert_eq!(status, 200, "{reset}");
    assert!(reset["secret"].is_string());
    assert_eq!(
        s.post(&admin, &path(&ian.staff_id, "disable"), why.clone())
            .0,
        200
    );
    // Not writers (the supervisors' duty), nor other administrators (the command line's).
    assert_eq!(
        code(&add(&admin, "writer", "WANDA")),
        (403, Some("not_your_duty"))
    );
    assert_eq!(
        code(&add(&admin, "administrator", "ALAN")),
        (403, Some("not_your_duty"))
    );
    // An administrator takes no part in tickets or money.
    let ticket = s.post(
        &admin,
        "/api/v1/tickets",
        sale(
            "a1",
            json!({"type": "standard", "spots": [1]}),
            "standard",
            100,
            1,
        ),
    );
    assert_eq!(code(&ticket), (403, Some("forbidden")));
    let verified = keno_testkit::audit(&db, &["verify"]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
}

fn no_one_grants_an_override_to_themselves_under_another_staff_id(db: TestDb) {
    let here = db.terminal("735624", "03");
    let there = db.terminal("111111", "01");
    let julie = db.staff("writer", "JULIE");
    let ann_writes = db.staff("writer", "Ann");
    let ann = db.staff("supervisor", "ANN");
    let bob = db.staff("supervisor", "BOB");
    let s = Server::start(&db, MANUAL_CLOCK);
    let julie_token = s.session(Some(&here), &julie);
    let ann_token = s.session(Some(&there), &ann_writes);
    let serial = s.sell(
        &julie_token,
        sale(
            "o1",
            json!({"type": "standard", "spots": [4, 5]}),
            "standard",
            200,
            1,
        ),
    )["serial"]
        .as_str()
        .unwrap()
        .to_string();
    let ask = |supervisor: Value| {
        json!({"action": "cancel", "serial": serial, "supervisor": supervisor,
            "reason": "bought at the other venue"})
    };
    // ANN, writing at the other site, cannot approve her own cancellation as supervisor ANN.
    assert_eq!(
        code(&s.post(&ann_token, "/api/v1/overrides", ask(ann.sign_on_body()))),
        (403, Some("same_person"))
    );
    let (status, granted) = s.post(&ann_token, "/api/v1/overrides", ask(bob.sign_on_body()));
    assert_eq!(status, 201, "{granted}");
}

/// The board covered with 1-spot tickets and settled (twenty win), the game aged 13 months so a
/// prize is paid only through a claim; a winner's serial and its claim form.
fn an_old_winner(w: &keno_testkit::World, db: &TestDb) -> (String, Value) {
    let serials = cover_the_board(w, "t", (100, 1, "standard"));
    let settled = w.server.close_and_settle(&w.supervisor);
    let winner = drawn_serials(&serials, &settled)[0].clone();
    let day = settled["keno_day"].as_str().unwrap();
    let d = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap();
    let aged = (d - chrono::Months::new(13)).format("%Y-%m-%d");
    db.execute(&format!(
        "UPDATE games SET keno_day = '{aged}', settled_at = settled_at - {} WHERE number = {}",
        400_i64 * 86_400 * 1_000_000,
        settled["number"]
    ));
    let form = json!({
        "reason": "old", "claimant_name": "Mary Citizen",
        "postal_address": "1 Example St\nCanberra ACT 2601", "phone": "02 6200 0000",
        "purchase_place": "735624", "purchase_date": aged.to_string(),
        "approx_game": settled["number"], "games": 1, "other_details": "1 spot, $1",
        "serial": winner,
    });
    (winner, form)
}

fn who_files_approves_and_pays_a_claim_are_three_people(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let (winner, form) = an_old_winner(&w, &db);
    let s = &w.server;
    // SUPER files the claim.
    let (status, claim) = s.post(&w.supervisor, "/api/v1/claims", form);
    assert_eq!(status, 201, "{claim}");
    let id = claim["id"].as_i64().unwrap();
    let approve = json!({"serial": winner, "reason": "the ticket matches the form"});
    // SUPER's own inspector ID may not approve it; another inspector does.
    let super_inspects = db.principal("inspector", "Super", None);
    assert_eq!(
        code(&s.post(
            &super_inspects,
            &format!("/api/v1/claims/{id}/approve"),
            approve.clone()
        )),
        (403, Some("same_person"))
    );
    let ian = db.principal("inspector", "IAN", None);
    let (status, approved) = s.post(&ian, &format!("/api/v1/claims/{id}/approve"), approve);
    assert_eq!(status, 200, "{approved}");
    // Neither who filed it nor who approved it pays it.
    let cheque = json!({"cheque_reference": "CHQ-1"});
    let pay = format!("/api/v1/claims/{id}/pay");
    assert_eq!(
        code(&s.post(&w.supervisor, &pay, cheque.clone())),
        (403, Some("same_person"))
    );
    let ian_supervises = db.principal("supervisor", "IAN", None);
    assert_eq!(
        code(&s.post(&ian_supervises, &pay, cheque.clone())),
        (403, Some("same_person"))
    );
    let bob = db.principal("supervisor", "BOB", None);
    let (status, paid) = s.post(&bob, &pay, cheque);
    assert_eq!(status, 200, "{paid}");
    assert_eq!(paid["state"], "paid");
}
