//! Bearer tokens against a real server: they never reach its output, even at log level trace,
//! and an address that presents bad ones is refused after a burst (429
//! `too_many_auth_failures`) without slowing the good tokens already at work.

use keno_testkit::{on_both_backends, Server, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    tokens_never_reach_the_logs,
    bad_tokens_are_refused_after_a_burst,
    behind_a_proxy_the_forwarded_address_is_limited,
    event_streams_are_capped_and_a_closed_one_gives_its_place_back,
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
    // The burst is spent: a guess is refused, and only after a pause, so a guesser slows
    // itself.
    let started = std::time::Instant::now();
    let (status, e) = s.get_as(&keno_testkit::random_hex(32), "/api/v1/principals/me");
    assert_eq!(
        (status, e["error"].as_str()),
        (429, Some("too_many_auth_failures")),
        "{e}"
    );
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(900),
        "a guess over the limit is answered after its pause, not at once: {:?}",
        started.elapsed()
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
    // A good token this process has not seen yet, from the same address (a venue's NAT), is
    // looked up and gets in: the guesses cannot lock it out.
    let (status, me) = s.get_as(&auditor, "/api/v1/principals/me");
    assert_eq!(
        (status, me["role"].as_str()),
        (200, Some("auditor")),
        "{me}"
    );
    // The guesses go on being refused, the terminal at work goes on selling, past the cache's
    // 10 seconds too, and the public pages are untouched.
    let (status, _) = s.get_as(&keno_testkit::random_hex(32), "/api/v1/principals/me");
    assert_eq!(status, 429);
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

/// Issue 22: event streams are capped (here 3 from one address); one more is refused with 503,
/// `Retry-After` and `too_many_streams`, and a stream closed gives its place back.
fn event_streams_are_capped_and_a_closed_one_gives_its_place_back(db: TestDb) {
    let caps = ["--event-streams", "10", "--event-streams-per-address", "3"];
    let s = Server::start(&db, &[MANUAL_CLOCK, &caps[..]].concat());
    let address = s.base.trim_start_matches("http://").to_string();
    let mut held: Vec<std::net::TcpStream> = (0..3)
        .map(|_| {
            let (head, stream) = open_stream(&address);
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            stream
        })
        .collect();
    let (head, _) = open_stream(&address);
    assert!(head.starts_with("HTTP/1.1 503"), "{head}");
    let lower = head.to_ascii_lowercase();
    assert!(lower.contains("retry-after: 30"), "{head}");
    assert!(head.contains("too_many_streams"), "{head}");
    // Other requests from the address are not refused.
    assert_eq!(s.get("/api/v1/games/current").0, 200);
    // A display gone: its place comes back once the server sees the connection closed (at the
    // latest when a second keep-alive comment, 5 s apart, cannot be written).
    drop(held.pop());
    let start = std::time::Instant::now();
    loop {
        let (head, stream) = open_stream(&address);
        if head.starts_with("HTTP/1.1 200") {
            held.push(stream);
            break;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(25),
            "the closed stream's place never came back: {head}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// Opens `GET /api/v1/events` on a connection of its own: the answer's head (with the body of
/// a refusal) and the connection, held open as a display holds it.
fn open_stream(address: &str) -> (String, std::net::TcpStream) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    write!(
        stream,
        "GET /api/v1/events HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    // The head, and for a stream its first comment (": connected") or a refusal's body.
    while !String::from_utf8_lossy(&head).contains("\r\n\r\n")
        || !(String::from_utf8_lossy(&head).contains("connected")
            || String::from_utf8_lossy(&head).contains('}'))
    {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    (String::from_utf8_lossy(&head).into_owned(), stream)
}
