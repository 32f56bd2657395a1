//! Event streams for the venue first (issue 31): idle anonymous streams from a few addresses
//! once filled `--event-streams` and a venue's board got 503. A registered display
//! (`keno-server display add`) presents its credential with its stream and always gets one,
//! whatever anonymous clients hold; a credential that is no display's is refused and counted
//! as a bad bearer token is; it is the credential of nothing else.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use keno_testkit::{on_both_backends, Server, TestDb, MANUAL_CLOCK};
use serde_json::{json, Value};

on_both_backends!(
    a_registered_display_gets_its_stream_when_idle_clients_fill_the_caps,
    a_bad_display_credential_is_refused_and_counted_as_a_bad_token,
    displays_are_registered_rotated_and_disabled_by_supervisors,
);

/// Anonymous streams: 4 in all, 2 from one address.
const CAPS: &[&str] = &["--event-streams", "4", "--event-streams-per-address", "2"];

fn a_registered_display_gets_its_stream_when_idle_clients_fill_the_caps(db: TestDb) {
    let board = db.display("735624", "bar");
    let supervisor = db.principal("supervisor", "SUPER", None);
    let s = Server::start(&db, &[MANUAL_CLOCK, CAPS].concat());
    // Idle clients from the two addresses allowed fill both caps.
    let mut idle = Vec::new();
    for from in ["127.0.0.1", "127.0.0.2"] {
        for _ in 0..2 {
            let (head, stream) = open_stream(&s, from, "/api/v1/events", &[]);
            assert!(head.starts_with("HTTP/1.1 200"), "{from}: {head}");
            idle.push(stream);
        }
    }
    let (head, _) = open_stream(&s, "127.0.0.3", "/api/v1/events", &[]);
    assert_refused_for_streams(&head, "a third address, the total full");
    let (head, _) = open_stream(&s, "127.0.0.1", "/api/v1/events", &[]);
    assert_refused_for_streams(&head, "an address at its cap");
    // The venue's board behind an address at its cap gets in, by the query (as the board page
    // sends it) and by its bearer token.
    let path = format!("/api/v1/events?display={board}");
    let (head, mut by_query) = open_stream(&s, "127.0.0.1", &path, &[]);
    assert!(
        head.starts_with("HTTP/1.1 200"),
        "the board is refused: {head}"
    );
    let auth = format!("Bearer {board}");
    let (head, mut by_header) = open_stream(
        &s,
        "127.0.0.2",
        "/api/v1/events",
        &[("Authorization", &auth)],
    );
    assert!(
        head.starts_with("HTTP/1.1 200"),
        "the board is refused: {head}"
    );
    // Its streams carry the events.
    let game = s.post(&supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(game.0, 200, "{}", game.1);
    for stream in [&mut by_query, &mut by_header] {
        let heard = read_until(stream, "event: game_closed");
        assert!(heard.contains("event: game_closed"), "{heard}");
    }
    // Still no room for anyone else; once the board and an idle client are gone, there is.
    let (head, _) = open_stream(&s, "127.0.0.4", "/api/v1/events", &[]);
    assert_refused_for_streams(&head, "anonymous, with the board's streams open");
    drop((by_query, by_header, idle.pop()));
    wait_for_a_stream(&s, "127.0.0.4");
    // The credential is a display's, nobody's bearer token.
    let (status, e) = s.get_as(&board, "/api/v1/principals/me");
    assert_eq!((status, e["error"].as_str()), (401, Some("unauthorized")));
    assert_eq!(s.get_as(&board, "/api/v1/games/current").0, 200);
}

fn assert_refused_for_streams(head: &str, what: &str) {
    assert!(head.starts_with("HTTP/1.1 503"), "{what}: {head}");
    assert!(head.contains("too_many_streams"), "{what}: {head}");
}

/// Waits for an anonymous stream from `from` to be let in (a closed stream's place comes back
/// once the server finds the connection gone, within two keep-alives).
fn wait_for_a_stream(s: &Server, from: &str) -> TcpStream {
    let start = Instant::now();
    loop {
        let (head, stream) = open_stream(s, from, "/api/v1/events", &[]);
        if head.starts_with("HTTP/1.1 200") {
            return stream;
        }
        assert!(
            start.elapsed() < Duration::from_secs(25),
            "a closed stream's place never came back: {head}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn a_bad_display_credential_is_refused_and_counted_as_a_bad_token(db: TestDb) {
    let board = db.display("735624", "bar");
    let auditor = db.principal("auditor", "AUDIT", None);
    let limits = ["--auth-failure-burst", "3", "--auth-failure-rate", "1"];
    let s = Server::start(&db, &[MANUAL_CLOCK, CAPS, &limits[..]].concat());
    // A guess by the query, one by the header, one off by a digit: each refused, no stream.
    let guess = format!("kd_{}", keno_testkit::random_hex(32));
    let mut near_miss = board.clone();
    let last = near_miss.pop().unwrap();
    near_miss.push(if last == '0' { '1' } else { '0' });
    let by_header = format!("Bearer {guess}");
    for (path, headers) in [
        (format!("/api/v1/events?display={guess}"), vec![]),
        (
            "/api/v1/events".to_string(),
            vec![("Authorization", by_header.as_str())],
        ),
        (format!("/api/v1/events?display={near_miss}"), vec![]),
    ] {
        let (head, _) = open_stream(&s, "127.0.0.1", &path, &headers);
        assert!(head.starts_with("HTTP/1.1 401"), "{path}: {head}");
        assert!(head.contains("\"unauthorized\""), "{head}");
    }
    // They used the address's allowance of bad tokens, as bad bearer tokens would have.
    let (status, e) = s.get_as(&keno_testkit::random_hex(32), "/api/v1/principals/me");
    assert_eq!(
        (status, e["error"].as_str()),
        (429, Some("too_many_auth_failures")),
        "{e}"
    );
    let (head, _) = open_stream(
        &s,
        "127.0.0.1",
        &format!("/api/v1/events?display={guess}"),
        &[],
    );
    assert!(head.starts_with("HTTP/1.1 429"), "{head}");
    // The good ones behind the same address still get in: the board, a principal's token.
    let (head, _) = open_stream(
        &s,
        "127.0.0.1",
        &format!("/api/v1/events?display={board}"),
        &[],
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(s.get_as(&auditor, "/api/v1/principals/me").0, 200);
    // A bearer token that is not a display's is no display credential: an anonymous stream,
    // as it always was.
    let other = format!("Bearer {}", keno_testkit::random_hex(32));
    let (head, _) = open_stream(
        &s,
        "127.0.0.1",
        "/api/v1/events",
        &[("Authorization", &other)],
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

fn displays_are_registered_rotated_and_disabled_by_supervisors(db: TestDb) {
    let supervisor = db.principal("supervisor", "SUPER", None);
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let s = Server::start(&db, &[MANUAL_CLOCK, CAPS].concat());
    let body = json!({"site": "735624", "display": "lounge", "reason": "the new screen"});
    assert_eq!(s.post(&writer, "/api/v1/displays", body.clone()).0, 403);
    let (status, made) = s.post(&supervisor, "/api/v1/displays", body.clone());
    assert_eq!(status, 201, "{made}");
    let first = made["credential"].as_str().unwrap().to_string();
    assert!(first.starts_with("kd_") && first.len() == 67, "{first}");
    let (status, e) = s.post(&supervisor, "/api/v1/displays", body);
    assert_eq!(
        (status, e["error"].as_str()),
        (409, Some("display_registered"))
    );
    let bad = json!({"site": "735 624", "display": "x", "reason": "r"});
    let (status, e) = s.post(&supervisor, "/api/v1/displays", bad);
    assert_eq!(
        (status, e["error"].as_str()),
        (400, Some("invalid_display"))
    );
    assert!(stream_status(&s, &first).starts_with("HTTP/1.1 200"));

    // Rotated: the old credential stops at once, the new one works.
    let why = json!({"reason": "shown on a photo"});
    let (status, rotated) = s.post(&supervisor, "/api/v1/displays/735624/lounge/rotate", why);
    assert_eq!(status, 200, "{rotated}");
    let second = rotated["credential"].as_str().unwrap().to_string();
    assert!(stream_status(&s, &first).starts_with("HTTP/1.1 401"));
    assert!(stream_status(&s, &second).starts_with("HTTP/1.1 200"));
    // Disabled (over HTTP, then at the command line for another): refused.
    let why = json!({"reason": "screen taken down"});
    let (status, info) = s.post(&supervisor, "/api/v1/displays/735624/lounge/disable", why);
    assert_eq!(
        (status, info["disabled"].as_bool()),
        (200, Some(true)),
        "{info}"
    );
    assert!(stream_status(&s, &second).starts_with("HTTP/1.1 401"));
    let bar = db.display("735624", "bar");
    let which = ["--site", "735624", "--display", "bar", "--reason", "broken"];
    db.display_command(&[&["disable"], &which[..]].concat());
    assert!(stream_status(&s, &bar).starts_with("HTTP/1.1 401"));
    let listed = db.display_command(&["list"]);
    let (status, over_http) = s.get_as(&supervisor, "/api/v1/displays");
    assert_eq!(status, 200);
    assert_eq!(listed, over_http);
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    assert_eq!(s.get_as(&writer, "/api/v1/displays").0, 403);
    // Every act is in the trail with who and why, the credential only as its digest.
    for (kind, count) in [
        ("display_registered", 2),
        ("display_credential_rotated", 1),
        ("display_disabled", 2),
    ] {
        let n = db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM audit_log WHERE kind = '{kind}' AND payload LIKE '%\"reason\"%'"
        ));
        assert_eq!(n, count, "{kind}");
    }
    let leaked = db.query_i64(&format!(
        "SELECT COUNT(*) AS n FROM audit_log WHERE payload LIKE '%{}%' OR payload LIKE '%{}%'",
        &first[3..],
        &second[3..]
    ));
    assert_eq!(leaked, 0, "a credential is in the trail");
}

fn stream_status(s: &Server, credential: &str) -> String {
    open_stream(
        s,
        "127.0.0.1",
        &format!("/api/v1/events?display={credential}"),
        &[],
    )
    .0
}

/// Opens `GET path` on a connection of its own from the loopback address `from`: the answer's
/// head (with the body of a refusal, or a stream's first comment) and the connection, held open
/// as a display holds it.
fn open_stream(
    s: &Server,
    from: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (String, TcpStream) {
    let address = s.base.trim_start_matches("http://").to_string();
    let server: SocketAddr = address.parse().unwrap();
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let local = SocketAddr::new(from.parse::<IpAddr>().unwrap(), 0);
    socket.bind(&local.into()).unwrap();
    socket.connect(&server.into()).unwrap();
    let mut stream: TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let extra: String = headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\r\n"))
        .collect();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n{extra}\r\n"
    )
    .unwrap();
    let head = read_while(&mut stream, |text| {
        !text.contains("\r\n\r\n") || !(text.contains("connected") || text.contains('}'))
    });
    (head, stream)
}

/// What the stream says until `wanted` has come (or 10 seconds have gone by).
fn read_until(stream: &mut TcpStream, wanted: &str) -> String {
    read_while(stream, |text| !text.contains(wanted))
}

/// Reads while `more` says so, for 10 seconds at most.
fn read_while(stream: &mut TcpStream, more: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    let mut read = Vec::new();
    let mut buf = [0u8; 1024];
    while more(&String::from_utf8_lossy(&read)) && start.elapsed() < Duration::from_secs(10) {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => read.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&read).into_owned()
}
