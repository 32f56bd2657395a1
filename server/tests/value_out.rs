//! Value going out of the room (issue 31): one rule, keno-core's `value_out`, for every path a
//! writer hands value out by. A ticket refused payment above the payout limit cannot leave as
//! a sale's change and that voucher's cash-out instead; a voucher's cash-out has the limit and
//! the site binding of a ticket's payment; a quote shows no other site's ticket's prize. On
//! SQLite and PostgreSQL, over real HTTP.

use keno_testkit::{
    cover_the_board, drawn_serials, on_both_backends, sale, world, Server, TestDb, World,
    MANUAL_CLOCK,
};
use serde_json::{json, Value};

on_both_backends!(
    a_ticket_above_the_limit_leaves_neither_as_change_nor_as_a_cash_out,
    another_sites_voucher_and_a_quote_of_its_ticket_need_a_supervisor,
    a_writer_without_an_open_shift_takes_and_hands_out_nothing,
);

fn code(answer: &(u16, Value)) -> (u16, Option<&str>) {
    (answer.0, answer.1["error"].as_str())
}

/// The board covered with $1 1-spot tickets at JULIE's counter and settled: twenty winners
/// of $3 each.
fn winners(w: &World) -> Vec<String> {
    let serials = cover_the_board(w, "t", (100, 1, "standard"));
    let settled = w.server.close_and_settle(&w.supervisor);
    drawn_serials(&serials, &settled)
}

/// A $1 sale of one 1-spot, paid with `tender`.
fn tendered_sale(id: &str, tender: Value) -> Value {
    let mut body = sale(
        id,
        json!({"type": "standard", "spots": [9]}),
        "standard",
        100,
        1,
    );
    body["tender"] = tender;
    body
}

fn a_ticket_above_the_limit_leaves_neither_as_change_nor_as_a_cash_out(db: TestDb) {
    // A writer hands out $1.00 alone: a $3 prize is above it.
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--writer-payout-limit", "100"]);
    let w = world(&db, &args);
    let ann = db.staff("supervisor", "ANN");
    let s = &w.server;
    let winner = winners(&w)[0].clone();
    assert_eq!(
        code(&s.post(
            &w.writer,
            &format!("/api/v1/tickets/{winner}/pay"),
            Value::Null
        )),
        (403, Some("approval_required"))
    );
    // The side door: the winner tendered for a $1 sale, its $2 change a voucher.
    let side_door = tendered_sale("side-door", json!({"ticket": winner}));
    assert_eq!(
        code(&s.post(&w.writer, "/api/v1/tickets", side_door.clone())),
        (403, Some("approval_required"))
    );
    // With a supervisor's approval to tender it, the sale goes through.
    let ask = json!({"action": "tender", "serial": winner, "supervisor": ann.sign_on_body(),
        "reason": "a $3 ticket tendered"});
    let (status, granted) = s.post(&w.writer, "/api/v1/overrides", ask);
    assert_eq!(status, 201, "{granted}");
    let header = [("X-Keno-Override", granted["grant"].as_str().unwrap())];
    let (status, sold) = s.request(
        "POST",
        &w.writer,
        "/api/v1/tickets",
        &header,
        Some(side_door),
    );
    assert_eq!(status, 201, "{sold}");
    let change = sold["payment"]["change_voucher"]
        .as_str()
        .unwrap_or_else(|| panic!("a change voucher: {sold}"))
        .to_string();

    // Its change, $2, is above the limit too: cashed out only with a supervisor.
    let cash = format!("/api/v1/vouchers/{change}/cash");
    assert_eq!(
        code(&s.post(&w.writer, &cash, Value::Null)),
        (403, Some("approval_required"))
    );
    let ask = json!({"action": "cash_out", "serial": change, "supervisor": ann.sign_on_body(),
        "reason": "the change of a tendered ticket"});
    let (status, granted) = s.post(&w.writer, "/api/v1/overrides", ask);
    assert_eq!(status, 201, "{granted}");
    let header = [("X-Keno-Override", granted["grant"].as_str().unwrap())];
    let (status, paid) = s.request("POST", &w.writer, &cash, &header, Some(Value::Null));
    assert_eq!(status, 200, "{paid}");
    assert_eq!(paid["paid_cents"], 200);
    let approved = db.query_text(&format!(
        "SELECT payload AS s FROM audit_log WHERE kind = 'voucher_cashed' AND subject = '{change}'"
    ));
    assert!(approved.contains(&ann.staff_id), "{approved}");
    let verified = keno_testkit::audit(&db, &["verify"]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
}

fn another_sites_voucher_and_a_quote_of_its_ticket_need_a_supervisor(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let omar = db.principal("writer", "OMAR", Some(("111111", "01")));
    let ann = db.staff("supervisor", "ANN");
    let s = &w.server;
    let winner = winners(&w)[0].clone();
    // JULIE's voucher, and her site's winning ticket, at OMAR's counter of another site.
    let (status, voucher) = s.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "deposit-1", "amount_cents": 100}),
    );
    assert_eq!(status, 201, "{voucher}");
    let code_of = voucher["code"].as_str().unwrap().to_string();
    let cash = format!("/api/v1/vouchers/{code_of}/cash");
    assert_eq!(
        code(&s.post(&omar, &cash, Value::Null)),
        (403, Some("other_site"))
    );
    let quote = tendered_sale("quote-1", json!({"ticket": winner}));
    let quoted = s.post(&omar, "/api/v1/tickets/quote", quote);
    assert_eq!(code(&quoted), (403, Some("other_site")), "{quoted:?}");
    // No prize shown: the refusal says no amount (a serial may hold the digits 300).
    let said = quoted.1["message"].as_str().unwrap_or("");
    assert!(
        !said.contains('$') && quoted.1.as_object().is_some_and(|o| o.len() == 2),
        "no prize shown: {}",
        quoted.1
    );
    // With a supervisor's approval the voucher is cashed out at the other site, once.
    let ask = json!({"action": "cash_out", "serial": code_of, "supervisor": ann.sign_on_body(),
        "reason": "the player's voucher of the other venue"});
    let (status, granted) = s.post(&omar, "/api/v1/overrides", ask);
    assert_eq!(status, 201, "{granted}");
    let header = [("X-Keno-Override", granted["grant"].as_str().unwrap())];
    let (status, paid) = s.request("POST", &omar, &cash, &header, Some(Value::Null));
    assert_eq!(status, 200, "{paid}");
    // JULIE at her own site quotes the same tender as before.
    let (status, quoted) = s.post(
        &w.writer,
        "/api/v1/tickets/quote",
        tendered_sale("quote-2", json!({"ticket": winner})),
    );
    assert_eq!(status, 200, "{quoted}");
}

/// Cash acts need the writer's shift open at the terminal (`--cash-needs-shift`, on by
/// default), so every cent is in a drawer: with JULIE's shift closed, her sale, cancellation,
/// payment, voucher bought and voucher cashed are each refused `no_shift`, a supervisor's
/// approval changes nothing, and reading a ticket still works. With the setting off, a writer
/// who never opened a shift sells.
fn a_writer_without_an_open_shift_takes_and_hands_out_nothing(db: TestDb) {
    let w = world(&db, MANUAL_CLOCK);
    let s = &w.server;
    let winner = winners(&w)[0].clone();
    let later = s.sell(
        &w.writer,
        sale(
            "later",
            json!({"type": "standard", "spots": [5]}),
            "standard",
            100,
            5,
        ),
    );
    let later = later["serial"].as_str().unwrap().to_string();
    let (status, voucher) = s.post(
        &w.writer,
        "/api/v1/vouchers",
        json!({"request_id": "v-1", "amount_cents": 500}),
    );
    assert_eq!(status, 201, "{voucher}");
    let voucher = voucher["code"].as_str().unwrap().to_string();
    let (_, shift) = s.get_as(&w.writer, "/api/v1/shifts/current");
    let counted = json!({"counted_cents": shift["expected_cents"]});
    let (status, closed) = s.post(&w.writer, "/api/v1/shifts/current/close", counted);
    assert_eq!(status, 200, "{closed}");

    let refused = |method: &str, path: &str, body: Option<Value>, header: &[(&str, &str)]| {
        let answer = s.request(method, &w.writer, path, header, body);
        assert_eq!(
            code(&answer),
            (409, Some("no_shift")),
            "{method} {path}: {}",
            answer.1
        );
        assert!(answer.1["message"]
            .as_str()
            .unwrap()
            .contains("no shift is open"));
    };
    let one_spot = sale(
        "no-drawer",
        json!({"type": "standard", "spots": [7]}),
        "standard",
        100,
        1,
    );
    refused("POST", "/api/v1/tickets", Some(one_spot.clone()), &[]);
    refused(
        "POST",
        &format!("/api/v1/tickets/{later}/cancel"),
        None,
        &[],
    );
    refused("POST", &format!("/api/v1/tickets/{winner}/pay"), None, &[]);
    let deposit = json!({"request_id": "v-2", "amount_cents": 500});
    refused("POST", "/api/v1/vouchers", Some(deposit), &[]);
    let as_voucher = json!({"request_id": "v-3", "ticket": winner});
    refused("POST", "/api/v1/vouchers", Some(as_voucher), &[]);
    refused(
        "POST",
        &format!("/api/v1/vouchers/{voucher}/cash"),
        None,
        &[],
    );
    // A supervisor's approval is for a limit or a site, not for a drawer.
    let ann = db.staff("supervisor", "ANN");
    let ask = json!({"action": "pay", "serial": winner, "supervisor": ann.sign_on_body(),
        "reason": "paid with no drawer"});
    let (status, granted) = s.post(&w.writer, "/api/v1/overrides", ask);
    assert_eq!(status, 201, "{granted}");
    let grant = granted["grant"].as_str().unwrap().to_string();
    refused(
        "POST",
        &format!("/api/v1/tickets/{winner}/pay"),
        None,
        &[("X-Keno-Override", &grant)],
    );
    let (status, read) = s.get_as(&w.writer, &format!("/api/v1/tickets/{winner}"));
    assert_eq!(status, 200, "reading a ticket moves no cash: {read}");
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM tickets WHERE paid_at IS NOT NULL OR cancelled_at IS NOT NULL OR request_id = 'no-drawer'"),
        0,
        "nothing was sold, paid or cancelled"
    );
    drop(w);

    // A venue that keeps no drawer per writer turns the rule off.
    let mark = db.principal_without_shift("writer", "MARK", Some(("735624", "04")));
    let off = Server::start(
        &db,
        &[MANUAL_CLOCK, &["--cash-needs-shift", "false"]].concat(),
    );
    let (status, sold) = off.post(&mark, "/api/v1/tickets", one_spot);
    assert_eq!(status, 201, "{sold}");
}
