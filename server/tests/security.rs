//! Bearer tokens against a real server: they never reach its output, even at log level trace,
//! and an address that presents bad ones is refused after a burst (429
//! `too_many_auth_failures`) without slowing the good tokens already at work.

use keno_testkit::{on_both_backends, Server, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    tokens_never_reach_the_logs,
    bad_tokens_are_refused_after_a_burst,
    behind_a_proxy_the_forwarded_address_is_limited,
);

fn tokens_never_reach_the_logs(db: TestDb) {
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.principal("supervisor", "SUPER", None);
    let (s, output) = Server::start_traced(&db, MANUAL_CLOCK);

    // Good tokens: a sale, a refused role, a read, a bad body.
    let ticket = s.sell(
        &writer,
        keno_testkit::sale(
            "log-1",
            json!({"type": "standard", "spots": [1, 2]}),
            "standard",
            100,
            1,
        ),
    );
    let serial = ticket["serial"].as_str().unwrap();
    assert_eq!(s.get_as(&writer, "/api/v1/principals/me").0, 200);
    assert_eq!(
        s.post(&writer, "/api/v1/games/current/close", Value::Null)
            .0,
        403
    );
    assert_eq!(
        s.get_as(&supervisor, &format!("/api/v1/tickets/{serial}"))
            .0,
        200
    );
    assert_eq!(
        s.post(&writer, "/api/v1/tickets", json!({"bet": "nonsense"}))
            .0,
        400
    );
    // Bad tokens: unknown, one character off a good one, in a malformed header.
    let unknown = keno_testkit::random_hex(32);
    let mut near_miss = writer.clone();
    let last = near_miss.pop().unwrap();
    near_miss.push(if last == '0' { '1' } else { '0' });
    for token in [&unknown, &near_miss] {
        let (status, e) = s.get_as(token, "/api/v1/principals/me");
        assert_eq!((status, e["error"].as_str()), (401, Some("unauthorized")));
        assert!(!e.to_string().contains(token.as_str()), "{e}");
    }
    assert_eq!(
        s.post(&unknown, "/api/v1/tickets", json!({})).0,
        401,
        "refused before the body is read"
    );
    let status = s
        .get_with(
            "/api/v1/principals/me",
            &[("Authorization", &format!("Token {supervisor}"))],
        )
        .status();
    assert_eq!(status, 401);
    s.close_and_settle(&supervisor);

    std::thread::sleep(std::time::Duration::from_millis(300));
    let text = output.text();
    assert!(
        text.contains("TRACE") && text.contains("DEBUG"),
        "the server logged at trace level: {text}"
    );
    assert!(
        text.contains("a bearer token that matches no principal"),
        "bad tokens are logged, without the token: {text}"
    );
    for (what, token) in [
        ("the writer's token", &writer),
        ("the supervisor's token", &supervisor),
        ("an unknown token", &unknown),
        ("a near miss", &near_miss),
    ] {
        assert!(
            !text.contains(token.as_str()),
            "{what} is in the server's output"
        );
        // Nor any long piece of it.
        for piece in token.as_bytes().chunks(16) {
            let piece = std::str::from_utf8(piece).unwrap();
            assert!(
                !text.contains(piece),
                "part of {what} ({piece}) is in the output"
            );
        }
    }
}

fn bad_tokens_are_refused_after_a_burst(db: TestDb) {
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let auditor = db.principal("auditor", "AUDIT", None);
    let s = Server::start(
        &db,
        &[
            MANUAL_CLOCK,
            &["--auth-failure-burst", "3", "--auth-failure-rate", "1"],
        ]
        .concat(),
    );
    // The writer is at work (its token has worked today); the auditor has not signed on yet.
    assert_eq!(s.get_as(&writer, "/api/v1/principals/me").0, 200);
    for _ in 0..3 {
        let (status, e) = s.get_as(&keno_testkit::random_hex(32), "/api/v1/principals/me");
        assert_eq!((status, e["error"].as_str()), (401, Some("unauthorized")));
    }
    // The burst is spent: a guess is not even looked up.
    let (status, e) = s.get_as(&keno_testkit::random_hex(32), "/api/v1/principals/me");
    assert_eq!(
        (status, e["error"].as_str()),
        (429, Some("too_many_auth_failures")),
        "{e}"
    );
    let (status, e) = s.post(&keno_testkit::random_hex(32), "/api/v1/tickets", json!({}));
    assert_eq!(
        (status, e["error"].as_str()),
        (429, Some("too_many_auth_failures"))
    );
    // How long to wait is in the header too, for clients that back off by themselves.
    let guess = format!("Bearer {}", keno_testkit::random_hex(32));
    let refused = s.get_with("/api/v1/principals/me", &[("Authorization", &guess)]);
    assert_eq!(refused.status().as_u16(), 429);
    let wait: u64 = refused
        .headers()
        .get("retry-after")
        .expect("a Retry-After header")
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "Retry-After: {wait}");
    // A token not seen today waits like the guesses from its address...
    assert_eq!(s.get_as(&auditor, "/api/v1/principals/me").0, 429);
    // ...while the terminal at work goes on selling, past the cache's 10 seconds too, and the
    // public pages are untouched.
    std::thread::sleep(std::time::Duration::from_secs(11));
    s.sell(
        &writer,
        keno_testkit::sale(
            "burst-1",
            json!({"type": "standard", "spots": [3]}),
            "standard",
            100,
            1,
        ),
    );
    assert_eq!(s.get("/api/v1/games/current").0, 200);
    // No token is no guess: 401, not counted.
    let (status, e) = s.get("/api/v1/claims");
    assert_eq!((status, e["error"].as_str()), (401, Some("unauthorized")));
    // X-Forwarded-For is not trusted by default: naming another address changes nothing.
    let guess = format!("Bearer {}", keno_testkit::random_hex(32));
    let status = s
        .get_with(
            "/api/v1/principals/me",
            &[
                ("Authorization", &guess),
                ("X-Forwarded-For", "203.0.113.50"),
            ],
        )
        .status();
    assert_eq!(status, 429);
}

fn behind_a_proxy_the_forwarded_address_is_limited(db: TestDb) {
    let s = Server::start(
        &db,
        &[
            MANUAL_CLOCK,
            &[
                "--auth-failure-burst",
                "2",
                "--auth-failure-rate",
                "1",
                "--trust-forwarded-for",
            ],
        ]
        .concat(),
    );
    let from = |forwarded: &str| {
        let guess = format!("Bearer {}", keno_testkit::random_hex(32));
        // What the client wrote, then what the proxy saw: only the last counts.
        s.get_with(
            "/api/v1/principals/me",
            &[("Authorization", &guess), ("X-Forwarded-For", forwarded)],
        )
        .status()
        .as_u16()
    };
    assert_eq!(from("10.9.9.9, 198.51.100.1"), 401);
    assert_eq!(from("10.9.9.8, 198.51.100.1"), 401);
    assert_eq!(from("10.9.9.7, 198.51.100.1"), 429);
    assert_eq!(from("198.51.100.2"), 401, "another client behind the proxy");
}
