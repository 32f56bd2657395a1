//! Requests sent again, and careless or hostile ones (issue 22), over real HTTP on both
//! backends: a request id belongs to one request; a payment, a cancellation and a cash-out
//! retried under their request id answer their first outcome; a text or list over its limit
//! is refused and stores nothing; a COMMIT cut short is answered as unknown, never as "nothing
//! was changed".

use keno_testkit::{on_both_backends, sale, world, Backend, Server, TestDb, World, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    lists_come_in_pages_with_a_cap,
    a_request_id_used_for_another_request_is_refused,
    money_moved_under_a_request_id_is_answered_again_not_refused,
    texts_and_lists_over_their_limits_are_refused_and_store_nothing,
);

const REQUEST_ID: &str = "X-Keno-Request-Id";

fn post_with_id(s: &Server, token: &str, path: &str, id: &str, body: Value) -> (u16, Value) {
    let bearer = format!("Bearer {token}");
    s.send(
        "POST",
        path,
        &[("Authorization", &bearer), (REQUEST_ID, id)],
        Some(body),
    )
}

fn a_request_id_used_for_another_request_is_refused(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let bet = |spots: Value| json!({"type": "standard", "spots": spots});
    let first = s.sell(
        &w.writer,
        sale("r-1", bet(json!([1, 2, 3])), "standard", 100, 1),
    );
    let serial = first["serial"].as_str().unwrap();
    // The same request again, written otherwise (games left to its default): its ticket.
    let mut same = sale("r-1", bet(json!([1, 2, 3])), "standard", 100, 1);
    same.as_object_mut().unwrap().remove("games");
    let (status, again) = s.post(&w.writer, "/api/v1/tickets", same);
    assert_eq!((status, again["serial"].as_str()), (200, Some(serial)));
    // Another sale under the same id: refused, naming the sale the id belongs to.
    for other in [
        sale("r-1", bet(json!([4, 5])), "standard", 100, 1),
        sale("r-1", bet(json!([1, 2, 3])), "standard", 200, 1),
        sale("r-1", bet(json!([1, 2, 3])), "standard", 100, 2),
    ] {
        let (status, e) = s.post(&w.writer, "/api/v1/tickets", other);
        assert_eq!(
            (status, e["error"].as_str()),
            (409, Some("request_id_reused")),
            "{e}"
        );
        let message = e["message"].as_str().unwrap();
        assert!(
            message.contains(serial) && message.contains("r-1"),
            "{message}"
        );
    }
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM tickets"), 1);
    // A voucher's issue likewise.
    let deposit = |amount: i64| json!({"request_id": "v-1", "amount_cents": amount});
    let (status, v) = s.post(&w.writer, "/api/v1/vouchers", deposit(500));
    assert_eq!(status, 201, "{v}");
    assert_eq!(s.post(&w.writer, "/api/v1/vouchers", deposit(500)).0, 200);
    let (status, e) = s.post(&w.writer, "/api/v1/vouchers", deposit(600));
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("request_id_reused")),
        "{e}"
    );
    assert!(e["message"]
        .as_str()
        .unwrap()
        .contains(v["code"].as_str().unwrap()));
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM vouchers"), 1);
}

/// One 1-spot ticket on every number, settled: the serials of the 20 that won.
fn winners(w: &World) -> Vec<String> {
    let serials = keno_testkit::cover_the_board(w, "c", (100, 1, "standard"));
    keno_testkit::drawn_serials(&serials, &w.server.close_and_settle(&w.supervisor))
}

fn money_moved_under_a_request_id_is_answered_again_not_refused(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let winners = winners(&w);
    // A payment whose answer was lost, sent again under its request id: the same payment.
    let pay = |serial: &str, id: &str| {
        post_with_id(
            s,
            &w.writer,
            &format!("/api/v1/tickets/{serial}/pay"),
            id,
            Value::Null,
        )
    };
    let (status, first) = pay(&winners[0], "pay-1");
    assert_eq!(status, 200, "{first}");
    let (status, again) = pay(&winners[0], "pay-1");
    assert_eq!(
        (status, &again),
        (200, &first),
        "a retry answers the first payment"
    );
    // The same id for another ticket's payment: refused, naming the first.
    let (status, e) = pay(&winners[1], "pay-1");
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("request_id_reused")),
        "{e}"
    );
    assert!(e["message"].as_str().unwrap().contains(&winners[0]), "{e}");
    // Without a request id a second payment is refused, saying when, how and by whom.
    let (status, e) = s.post(
        &w.writer,
        &format!("/api/v1/tickets/{}/pay", winners[0]),
        Value::Null,
    );
    assert_eq!((status, e["error"].as_str()), (409, Some("already_paid")));
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("$3.00 cash") && message.contains(" by ") && message.contains(" at "),
        "{message}"
    );
    let paid = |serial: &str| {
        db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'ticket_paid' AND subject = '{serial}'"
        ))
    };
    assert_eq!((paid(&winners[0]), paid(&winners[1])), (1, 0));

    // A cancellation likewise.
    let ticket = s.sell(
        &w.writer,
        sale(
            "k-1",
            json!({"type": "standard", "spots": [9]}),
            "standard",
            100,
            1,
        ),
    );
    let serial = ticket["serial"].as_str().unwrap();
    let cancel = |id: &str| {
        post_with_id(
            s,
            &w.writer,
            &format!("/api/v1/tickets/{serial}/cancel"),
            id,
            Value::Null,
        )
    };
    let (status, first) = cancel("cancel-1");
    assert_eq!(status, 200, "{first}");
    assert_eq!(cancel("cancel-1"), (200, first));
    let (status, e) = cancel("cancel-2");
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("already_cancelled"))
    );

    // And a voucher's cash-out.
    let (_, v) = s.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "v-9", "amount_cents": 700}),
    );
    let code = v["code"].as_str().unwrap();
    let cash = |id: &str| {
        post_with_id(
            s,
            &w.writer,
            &format!("/api/v1/vouchers/{code}/cash"),
            id,
            Value::Null,
        )
    };
    let (status, first) = cash("cash-1");
    assert_eq!(
        (status, first["paid_cents"].as_i64()),
        (200, Some(700)),
        "{first}"
    );
    assert_eq!(cash("cash-1"), (200, first));
    assert_eq!(cash("cash-2").1["error"], "already_cashed");
    // A request id too long to be one is refused before anything is done.
    let (status, e) = cash(&"x".repeat(101));
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_request_id"))
    );
    let verify = keno_testkit::audit(&db, &["verify"]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}

fn texts_and_lists_over_their_limits_are_refused_and_store_nothing(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let trail = || db.query_i64("SELECT COUNT(*) AS n FROM audit_log");
    let before = trail();
    let claim = |serial: String| {
        let mut form = claim_form();
        form["serial"] = json!(serial);
        form
    };
    // A serial of 1 MiB (the issue stored 2 MB): over the body's 256 KiB.
    let (status, e) = s.post(&w.supervisor, "/api/v1/claims", claim("1".repeat(1 << 20)));
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("too_long")),
        "{e}"
    );
    // Within the body's size, over the field's 40 characters: named.
    let (status, e) = s.post(&w.supervisor, "/api/v1/claims", claim("1".repeat(41)));
    assert_eq!((status, e["error"].as_str()), (400, Some("too_long")));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("serial is longer than its 40"),
        "{e}"
    );
    // A list past its limit, in a sale.
    let tenders: Vec<Value> = (0..1001).map(|_| json!({"voucher": "1"})).collect();
    let mut body = sale(
        "t-1",
        json!({"type": "standard", "spots": [1]}),
        "standard",
        100,
        1,
    );
    body["tender"] = Value::Array(tenders);
    let (status, e) = s.post(&w.writer, "/api/v1/tickets", body);
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("too_long")),
        "{e}"
    );
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM claims"), 0);
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM tickets"), 0);
    assert_eq!(trail(), before, "nothing reached the trail");
    // The document states the limits the server holds to.
    let (_, doc) = s.get("/api/v1/openapi.json");
    let form = &doc["components"]["schemas"]["ClaimForm"]["properties"];
    assert_eq!(form["serial"]["maxLength"], 40);
    assert_eq!(form["other_details"]["maxLength"], 2000);
}

/// A claim form without a serial (a lost ticket).
fn claim_form() -> Value {
    json!({
        "reason": "lost", "claimant_name": "A. Player", "postal_address": "1 Main St",
        "phone": "0400 000 000", "purchase_place": "Club", "purchase_date": "2026-11-20",
        "other_details": "1 spot, $1",
    })
}

fn lists_come_in_pages_with_a_cap(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let ids: Vec<i64> = (0..3)
        .map(|_| {
            let (status, c) = s.post(&w.supervisor, "/api/v1/claims", claim_form());
            assert_eq!(status, 201, "{c}");
            c["id"].as_i64().unwrap()
        })
        .collect();
    let page = |query: &str| {
        let (status, list) = s.get_as(&w.supervisor, &format!("/api/v1/claims{query}"));
        assert_eq!(status, 200, "{list}");
        let ids: Vec<i64> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_i64().unwrap())
            .collect();
        ids
    };
    // Newest first, two a page: the next page from the last of the first.
    assert_eq!(page("?limit=2"), vec![ids[2], ids[1]]);
    assert_eq!(page(&format!("?limit=2&before={}", ids[1])), vec![ids[0]]);
    assert_eq!(page(""), vec![ids[2], ids[1], ids[0]]);
    let (status, e) = s.get_as(&w.supervisor, "/api/v1/claims?limit=501");
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_range")),
        "{e}"
    );
    // The staff and the terminals likewise, by their keys.
    let (status, staff) = s.get_as(&w.supervisor, "/api/v1/staff?limit=500&after=");
    assert_eq!(status, 200, "{staff}");
    let (status, terminals) = s.get_as(&w.supervisor, "/api/v1/terminals?limit=1");
    assert_eq!(
        (status, terminals.as_array().map(Vec::len)),
        (200, Some(1)),
        "{terminals}"
    );
    let (status, _) = s.get_as(&w.supervisor, "/api/v1/terminals?limit=1&after=735624/03");
    assert_eq!(status, 200);
    let (status, e) = s.get_as(&w.supervisor, "/api/v1/unclaimed/movements?limit=0");
    assert_eq!((status, e["error"].as_str()), (400, Some("invalid_range")));
}

/// PostgreSQL: the connection of a payment is cut while it waits to commit (the fault
/// harness's pause), so its COMMIT fails. The answer cannot say "nothing was changed" (a COMMIT
/// that fails may have taken): 503, "unknown", and the retry under the same request id pays
/// exactly once.
#[test]
fn a_commit_cut_short_is_answered_as_unknown_and_its_retry_pays_once() {
    let Some(db) = TestDb::new(Backend::Postgres) else {
        return;
    };
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let server = Server::start_with(
        &db,
        "127.0.0.1:0",
        MANUAL_CLOCK,
        &[("KENO_FAULT_DELAYS", "payment=1500")],
    );
    let w = World {
        server,
        writer,
        supervisor,
    };
    let winners = winners(&w);
    let serial = winners[0].clone();
    let (base, token) = (w.server.base.clone(), w.writer.clone());
    let paying = std::thread::spawn(move || {
        let agent = keno_testkit::agent(None);
        let mut r = agent
            .post(format!("{base}/api/v1/tickets/{serial}/pay"))
            .header("Authorization", format!("Bearer {token}"))
            .header(REQUEST_ID, "pay-cut")
            .send_json(Value::Null)
            .unwrap();
        (
            r.status().as_u16(),
            r.body_mut().read_json::<Value>().unwrap(),
        )
    });
    // The payment's transaction is the one left open, waiting to commit: idle in it for longer
    // than between two of its statements (the pause is 1.5 s).
    let paused = "FROM pg_stat_activity WHERE datname = current_database() \
                  AND state = 'idle in transaction' AND pid <> pg_backend_pid() \
                  AND clock_timestamp() - state_change > interval '300 milliseconds'";
    let waiting = format!("SELECT COUNT(*) AS n {paused}");
    w.server.wait_for("the payment waiting to commit", || {
        db.query_i64(&waiting) == 1
    });
    db.query_i64(&format!(
        "SELECT COUNT(*) AS n FROM (SELECT pg_terminate_backend(pid) {paused}) AS cut"
    ));
    let (status, e) = paying.join().unwrap();
    assert_eq!(
        (status, e["error"].as_str()),
        (503, Some("unavailable")),
        "{e}"
    );
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("unknown") && !message.contains("nothing was changed"),
        "{message}"
    );
    let (status, paid) = post_with_id(
        &w.server,
        &w.writer,
        &format!("/api/v1/tickets/{}/pay", winners[0]),
        "pay-cut",
        Value::Null,
    );
    assert_eq!(
        (status, paid["paid_cents"].as_i64()),
        (200, Some(300)),
        "{paid}"
    );
    let entries = db.query_i64(&format!(
        "SELECT COUNT(*) AS n FROM audit_log WHERE kind = 'ticket_paid' AND subject = '{}'",
        winners[0]
    ));
    assert_eq!(entries, 1, "paid once");
}
