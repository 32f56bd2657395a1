//! `writer-terminal` against a real `keno-server` process on SQLite (issue 5): a sale of each
//! bet type from the command line, a network failure during a sale that does not sell twice,
//! pay and cancel.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use keno_testkit::{sale, world, Backend, Server, Staff, TestDb, MANUAL_CLOCK};
use serde_json::Value;

/// A supervisor adds "Lucky Corners" to the catalogue of set bets: three groups of three, played
/// two at a time and all together (4 ways), $1 a way suggested. Returns its id.
fn lucky_corners(s: &Server, supervisor: &str) -> i64 {
    let (status, set) = s.post(
        supervisor,
        "/api/v1/set-bets",
        serde_json::json!({"name": "Lucky Corners", "groups": [[1, 2, 3], [10, 20, 30], [71, 72, 73]],
                           "combine": [2, 3], "amount_per_way_cents": 100}),
    );
    assert_eq!(status, 201, "{set}");
    set["id"].as_i64().unwrap()
}

/// Runs the terminal against `base` as the writer `token`.
fn terminal(base: &str, token: &str, state: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_writer-terminal"))
        .args([
            "--server",
            base,
            "--token",
            token,
            "--state-dir",
            state.to_str().unwrap(),
        ])
        .args(args)
        .output()
        .unwrap()
}

fn json_out(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_bet_type_sells_from_the_command_line_and_prints_its_receipt() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token) = (w.server, w.writer);
    let state = tempfile::tempdir().unwrap();
    let sell = |args: &[&str]| {
        let mut all = vec!["--json", "sell"];
        all.extend_from_slice(args);
        json_out(&terminal(&s.base, &token, state.path(), &all))
    };
    let t = sell(&["--spots", "6,45,36,80", "--amount", "3.00"]);
    assert_eq!(
        (t["bet_type"].as_str(), t["total_cents"].as_u64()),
        (Some("standard"), Some(300))
    );
    let t = sell(&["--quick-pick", "7", "--amount", "2"]);
    assert_eq!(t["groups"][0].as_array().unwrap().len(), 7);
    let t = sell(&["--mystery", "--amount", "1"]);
    assert_eq!(t["bet_type"], "mystery_quick_pick");
    let t = sell(&[
        "--spots",
        "1,2,3,4,5,6,7,8",
        "--schedule",
        "special1",
        "--amount",
        "1",
    ]);
    assert_eq!(t["schedule"], "special1");
    let t = sell(&[
        "--spots",
        "10 20 30",
        "--schedule",
        "special2",
        "--amount",
        "1",
    ]);
    assert_eq!(t["ways"][0]["plays_as"], "special2");
    let t = sell(&[
        "--quick-pick",
        "6",
        "--schedule",
        "jackpot",
        "--amount",
        "2",
        "--games",
        "5",
    ]);
    assert_eq!(
        (t["schedule"].as_str(), t["games"].as_u64()),
        (Some("jackpot"), Some(5))
    );
    let t = sell(&["--groups", "06 45-36 80", "--combine", "2", "--amount", "3"]);
    assert_eq!(
        t["ways"],
        serde_json::json!([{"count": 1, "spots": 4, "plays_as": "standard"}])
    );

    // The human output is the Diagram C receipt.
    let out = terminal(
        &s.base,
        &token,
        state.path(),
        &[
            "sell",
            "--groups",
            "06 45-36 80",
            "--combine",
            "2",
            "--amount",
            "3",
        ],
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for field in [
        "SOLD",
        "RECEIPT TICKET",
        "BET-WAY",
        "OPERATOR NAME: JULIE",
        "TERMINAL 03, SITE 735624",
        "SELECTION(S): 06 45-36 80",
        "AMOUNT/WAY $3.00",
        "TICKET TOTAL $3.00",
        "1/04 $3",
    ] {
        assert!(text.contains(field), "{field} missing from\n{text}");
    }
    // The last receipt again, marked REPRINT.
    let out = terminal(&s.base, &token, state.path(), &["reprint"]);
    let reprint = String::from_utf8(out.stdout).unwrap();
    assert!(reprint.contains("*** REPRINT ***") && reprint.contains("SELECTION(S): 06 45-36 80"));

    // A refusal shows the server's reason and exits 1.
    let out = terminal(
        &s.base,
        &token,
        state.path(),
        &["sell", "--spots", "1,2,3", "--amount", "1.50"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("invalid_wager_increment") && err.contains("rule 6.2"),
        "{err}"
    );
}

/// A proxy to the server that forwards the first request and drops the connection before the
/// answer comes back, as a network that fails mid-sale; later connections pass through.
fn flaky_proxy(server: &str) -> String {
    let target = server.trim_start_matches("http://").to_string();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for (i, client) in listener.incoming().enumerate() {
            let Ok(mut client) = client else { continue };
            let mut upstream = TcpStream::connect(&target).unwrap();
            if i == 0 {
                // Read the whole request, pass it on, wait for the answer, then hang up.
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let n = client.read(&mut buf).unwrap();
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request);
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length: usize = text[..end]
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse().unwrap())
                            })
                            .unwrap_or(0);
                        if request.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                upstream.write_all(&request).unwrap();
                let _ = upstream.read(&mut buf);
                drop(client);
                continue;
            }
            let (mut c2, mut u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
            std::thread::spawn(move || std::io::copy(&mut c2, &mut u2));
            std::thread::spawn(move || std::io::copy(&mut upstream, &mut client));
        }
    });
    format!("http://{addr}")
}

#[test]
fn a_network_failure_during_a_sale_does_not_sell_twice() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token) = (w.server, w.writer);
    let state = tempfile::tempdir().unwrap();
    let proxy = flaky_proxy(&s.base);
    let out = terminal(
        &proxy,
        &token,
        state.path(),
        &["sell", "--spots", "5,6,7", "--amount", "2"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("SOLD (found on retry: one ticket, not two)"),
        "{text}"
    );
    let current = s.get("/api/v1/games/current").1["number"].as_i64().unwrap();
    // Exactly one ticket was sold: the terminal's next ticket number is 2.
    let next = json_out(&terminal(
        &s.base,
        &token,
        state.path(),
        &["--json", "sell", "--spots", "9", "--amount", "1"],
    ));
    assert_eq!(next["ticket_number"], 2);
    assert_eq!(next["first_game"].as_i64(), Some(current));

    // With no server at all the terminal knows nothing reached it, and says nothing was sold.
    let dead = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = terminal(
        &format!("http://{dead}"),
        &token,
        state.path(),
        &["sell", "--spots", "5", "--amount", "1"],
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("NOT SOLD") && err.contains("nothing was sold"),
        "{err}"
    );
}

#[test]
fn pay_and_cancel_from_the_command_line() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token, supervisor) = (w.server, w.writer, w.supervisor);
    let state = tempfile::tempdir().unwrap();
    // One 1-spot ticket on each number: 20 of them win $3 in any game.
    let serials: Vec<String> = (1..=80)
        .map(|n| {
            let t = json_out(&terminal(
                &s.base,
                &token,
                state.path(),
                &["--json", "sell", "--spots", &n.to_string(), "--amount", "1"],
            ));
            t["serial"].as_str().unwrap().to_string()
        })
        .collect();
    let cancel_me = json_out(&terminal(
        &s.base,
        &token,
        state.path(),
        &["--json", "sell", "--quick-pick", "4", "--amount", "5"],
    ));
    let out = terminal(
        &s.base,
        &token,
        state.path(),
        &["cancel", cancel_me["serial"].as_str().unwrap()],
    );
    let slip = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && slip.contains("REFUND $5.00"),
        "{slip}"
    );

    let game = s.close_and_settle(&supervisor);
    let number = game["number"].as_i64().unwrap();
    let winner = &serials[game["drawn"][0].as_u64().unwrap() as usize - 1];
    let out = terminal(&s.base, &token, state.path(), &["check", winner]);
    let check = String::from_utf8_lossy(&out.stdout);
    assert!(check.contains("PAYABLE $3.00"), "{check}");
    let paid = json_out(&terminal(
        &s.base,
        &token,
        state.path(),
        &["--json", "pay", winner],
    ));
    assert_eq!(
        (paid["paid_cents"].as_u64(), paid["method"].as_str()),
        (Some(300), Some("cash"))
    );
    let out = terminal(&s.base, &token, state.path(), &["pay", winner]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already_paid"));
    // Recent results, from a configuration file rather than options.
    let config = state.path().join("terminal.toml");
    std::fs::write(
        &config,
        format!(
            "server = \"{}\"\ntoken = \"{token}\"\ncasino = \"CANBERRA\"\n",
            s.base
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_writer-terminal"))
        .args(["--config", config.to_str().unwrap(), "results"])
        .output()
        .unwrap();
    let results = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first: Vec<String> = game["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| format!("{:02}", n.as_u64().unwrap()))
        .collect();
    assert!(
        results.contains(&format!("GAME {number:<6} settled   {}", first.join(" "))),
        "{results}"
    );
    // A mistyped serial is caught by its check digit before it reaches the server.
    let mut wrong = winner.clone().into_bytes();
    wrong[5] = if wrong[5] == b'9' { b'0' } else { wrong[5] + 1 };
    let out = terminal(
        &s.base,
        &token,
        state.path(),
        &["pay", std::str::from_utf8(&wrong).unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
}

/// What a receipt printer would make of ESC/POS bytes: the text lines (reversed runs in
/// brackets, as the marked numbers print white on black), the barcodes, whether it cut.
struct Decoded {
    lines: Vec<String>,
    barcodes: Vec<(u8, String)>,
    cut: bool,
}

/// A small ESC/POS decoder for the commands a receipt uses; any other command fails the test.
fn decode_escpos(bytes: &[u8]) -> Decoded {
    let mut d = Decoded {
        lines: vec![String::new()],
        barcodes: Vec::new(),
        cut: false,
    };
    let (mut i, mut reverse) = (0, false);
    let push = |d: &mut Decoded, c: char| d.lines.last_mut().unwrap().push(c);
    while i < bytes.len() {
        match bytes[i] {
            0x1B => {
                match bytes[i + 1] {
                    b'@' => i += 2,                             // initialize
                    b'E' | b'a' | b'-' | b'G' | b'M' => i += 3, // bold, justify, underline, ...
                    b'd' => {
                        // print and feed n lines
                        for _ in 0..bytes[i + 2] {
                            d.lines.push(String::new());
                        }
                        i += 3;
                    }
                    other => panic!("unexpected ESC {other:#x} at {i}"),
                }
            }
            0x1D => match bytes[i + 1] {
                b'B' => {
                    let on = bytes[i + 2] == 1;
                    if on != reverse {
                        // Reversed runs read as the text receipt shows them: " 06 " -> "[06]".
                        let line = d.lines.last_mut().unwrap();
                        if on {
                            line.push('\u{1}');
                        } else if let Some(start) = line.rfind('\u{1}') {
                            let inner: String = line[start + 1..].to_string();
                            line.truncate(start);
                            line.push_str(&format!("[{}]", &inner[1..inner.len() - 1]));
                        }
                    }
                    reverse = on;
                    i += 3;
                }
                b'!' | b'H' | b'f' | b'h' | b'w' => i += 3, // size, barcode options
                b'V' => {
                    d.cut = true;
                    i += 4;
                }
                b'k' => {
                    let system = bytes[i + 2];
                    let end = i + 3 + bytes[i + 3..].iter().position(|&b| b == 0).unwrap();
                    d.barcodes.push((
                        system,
                        String::from_utf8(bytes[i + 3..end].to_vec()).unwrap(),
                    ));
                    i = end + 1;
                }
                other => panic!("unexpected GS {other:#x} at {i}"),
            },
            0x0A => {
                d.lines.push(String::new());
                i += 1;
            }
            b => {
                assert!((0x20..0x7F).contains(&b), "unexpected byte {b:#x} at {i}");
                push(&mut d, char::from(b));
                i += 1;
            }
        }
    }
    d
}

/// Rule 13.1: the last day a terminal pays the ticket, twelve months after its Keno Day, as
/// the receipt prints it (dd/mm/yyyy); reckoned here with chrono, apart from keno-core.
fn claim_by(ticket: &Value) -> String {
    let day = chrono::NaiveDate::parse_from_str(ticket["keno_day"].as_str().unwrap(), "%Y-%m-%d")
        .unwrap();
    (day + chrono::Months::new(12))
        .format("%d/%m/%Y")
        .to_string()
}

/// Every field of Diagram C, in what the printer received.
fn assert_diagram_c(d: &Decoded, ticket: &Value) {
    let text = d.lines.join("\n");
    let serial = ticket["serial"].as_str().unwrap();
    for field in [
        "CASINO KENO".to_string(),
        "PLAY YOUR GAME".into(),
        "CANBERRA".into(),
        "RECEIPT TICKET".into(),
        "BET-WAY".into(),
        format!("DATE: {}", chrono::Local::now().format("%d/%m/%y")),
        "OPERATOR NAME: JULIE".into(),
        format!(
            "No. {:06}, TERMINAL 03, SITE 735624",
            ticket["ticket_number"].as_u64().unwrap()
        ),
        "SELECTION(S): 06 45-36 80".into(),
        "AMOUNT/WAY $3.00".into(),
        format!("FIRST GAME {}", ticket["first_game"]),
        format!("LAST GAME {}", ticket["last_game"]),
        "GAMES 001".into(),
        "GAME COST $3.00".into(),
        "TICKET TOTAL $3.00".into(),
        format!("CLAIM BY {}", claim_by(ticket)),
        format!("SERIAL No. {serial}"),
        "WAYS SPOTS AMOUNT".into(),
        "1/04 $3".into(),
    ] {
        assert!(
            text.contains(&field),
            "{field:?} missing from the printed receipt:\n{text}"
        );
    }
    // The time of sale, as HH:MM after the date.
    let time = text
        .split(" TIME: ")
        .nth(1)
        .map(|t| t[..5].to_string())
        .unwrap_or_default();
    assert!(
        time.len() == 5
            && time.as_bytes()[2] == b':'
            && time.replace(':', "").bytes().all(|b| b.is_ascii_digit()),
        "time {time:?}"
    );
    // The 80-number grid: eight rows of ten, the selections marked (printed reversed).
    let grid: Vec<&String> = d
        .lines
        .iter()
        .filter(|l| {
            l.contains(" 10 ")
                || l.contains("[10]")
                || l.trim_start().starts_with("71")
                || l.contains(" 71 ")
        })
        .collect();
    assert!(!grid.is_empty());
    for n in 1..=80 {
        let marked = [6, 36, 45, 80].contains(&n);
        let cell = if marked {
            format!("[{n:02}]")
        } else {
            format!(" {n:02} ")
        };
        assert!(text.contains(&cell), "{cell:?} not on the grid:\n{text}");
    }
    // The serial as a barcode (ITF, system 5), and the paper cut.
    assert_eq!(d.barcodes, vec![(5u8, serial.to_string())]);
    assert!(d.cut);
}

fn way_sale(base: &str, token: &str, state: &std::path::Path, print: &str) -> Value {
    json_out(&terminal(
        base,
        token,
        state,
        &[
            "--json",
            "--casino",
            "CANBERRA",
            "--print",
            print,
            "sell",
            "--groups",
            "06 45-36 80",
            "--combine",
            "2",
            "--amount",
            "3",
        ],
    ))
}

#[test]
fn escpos_receipt_to_a_file_has_every_field_of_diagram_c() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token) = (w.server, w.writer);
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("printer.bin");
    let ticket = way_sale(
        &s.base,
        &token,
        state.path(),
        &format!("escpos:file:{}", path.display()),
    );
    assert_diagram_c(&decode_escpos(&std::fs::read(&path).unwrap()), &ticket);
}

#[test]
fn escpos_receipt_to_a_network_printer_on_tcp() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token) = (w.server, w.writer);
    let state = tempfile::tempdir().unwrap();
    // A listener on 127.0.0.1 stands in for a printer on port 9100.
    let printer = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = printer.local_addr().unwrap();
    let received = std::thread::spawn(move || {
        let (mut conn, _) = printer.accept().unwrap();
        let mut bytes = Vec::new();
        conn.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let ticket = way_sale(
        &s.base,
        &token,
        state.path(),
        &format!("escpos:tcp://{addr}"),
    );
    assert_diagram_c(&decode_escpos(&received.join().unwrap()), &ticket);

    // Reprint, marked as such; a printer that is off is reported and the sale still stands.
    let path = state.path().join("reprint.bin");
    let out = terminal(
        &s.base,
        &token,
        state.path(),
        &[
            "--print",
            &format!("escpos:file:{}", path.display()),
            "reprint",
        ],
    );
    assert!(out.status.success());
    let d = decode_escpos(&std::fs::read(&path).unwrap());
    assert!(d.lines.iter().any(|l| l.contains("*** REPRINT ***")));
    let off = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = terminal(
        &s.base,
        &token,
        state.path(),
        &[
            "--print",
            &format!("escpos:tcp://{off}"),
            "sell",
            "--spots",
            "1",
            "--amount",
            "1",
        ],
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stdout).contains("SOLD"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("DONE, BUT NOT PRINTED"));
}

#[test]
fn pdf_receipt_renders_to_an_image() {
    let pdftoppm = ["/usr/bin/pdftoppm", "/usr/local/bin/pdftoppm"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(pdftoppm) = pdftoppm else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI must install poppler-utils (pdftoppm)"
        );
        eprintln!("skipped: pdftoppm (poppler-utils) is not installed");
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token) = (w.server, w.writer);
    let state = tempfile::tempdir().unwrap();
    let pdf = state.path().join("receipt.pdf");
    let ticket = way_sale(
        &s.base,
        &token,
        state.path(),
        &format!("pdf:{}", pdf.display()),
    );
    let png = state.path().join("receipt");
    let out = Command::new(pdftoppm)
        .args(["-png", "-r", "150", "-singlefile"])
        .arg(&pdf)
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let image = std::fs::read(state.path().join("receipt.png")).unwrap();
    assert_eq!(&image[1..4], b"PNG");
    // 80 mm wide at 150 dpi is about 472 pixels (the PNG header's width).
    let width = u32::from_be_bytes(image[16..20].try_into().unwrap());
    assert!((460..=485).contains(&width), "width {width}");
    // The text is in the PDF as text (Courier), so the receipt is searchable in an archive.
    let text = Command::new(pdftoppm.replace("pdftoppm", "pdftotext"))
        .arg(&pdf)
        .arg("-")
        .output();
    let t = text.expect("pdftotext comes with pdftoppm (poppler-utils)");
    let t = String::from_utf8_lossy(&t.stdout);
    assert!(
        t.contains("SELECTION(S): 06 45-36 80") && t.contains("TICKET TOTAL $3.00"),
        "{t}"
    );
    assert!(
        t.contains(&format!("CLAIM BY {}", claim_by(&ticket))),
        "{t}"
    );
    if let Some(dir) = std::env::var_os("KENO_RECEIPT_PNG") {
        std::fs::copy(state.path().join("receipt.png"), PathBuf::from(dir)).unwrap();
    }
}

/// The counter screen in tmux, driven by keystrokes as a writer would, read from the screen.
struct Tmux {
    session: String,
}

impl Tmux {
    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.session])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    }

    fn keys(&self, text: &str) {
        assert!(Command::new("tmux")
            .args(["send-keys", "-t", &self.session, "-l", text])
            .status()
            .unwrap()
            .success());
        assert!(Command::new("tmux")
            .args(["send-keys", "-t", &self.session, "Enter"])
            .status()
            .unwrap()
            .success());
    }

    fn key(&self, key: &str) {
        assert!(Command::new("tmux")
            .args(["send-keys", "-t", &self.session, key])
            .status()
            .unwrap()
            .success());
    }

    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{text:?} never showed; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.session])
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
fn set_bets_are_listed_and_sold_from_the_command_line() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token, supervisor) = (w.server, w.writer, w.supervisor);
    let state = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| terminal(&s.base, &token, state.path(), args);
    let out = run(&["sets"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "NO SET BETS ON SALE\n"
    );
    let id = lucky_corners(&s, &supervisor);
    let set = id.to_string();

    // The catalogue, for people and for scripts.
    let out = run(&["sets"]);
    let text = String::from_utf8(out.stdout).unwrap();
    for part in [
        &format!("SET {id}"),
        "Lucky Corners",
        "01 02 03-10 20 30-71 72 73",
        "C2,3",
        "3/06 1/09",
        "$1.00/WAY",
    ] {
        assert!(text.contains(part), "{part} missing from {text}");
    }
    let sets = json_out(&run(&["--json", "sets"]));
    assert_eq!(sets[0]["id"], id);
    assert_eq!(sets[0]["name"], "Lucky Corners");

    // Fixed: the set's numbers, at the amount given.
    let t = json_out(&run(&[
        "--json", "sell", "--set", &set, "--amount", "2", "--games", "2",
    ]));
    assert_eq!(t["bet_type"], "set_bet");
    assert_eq!(t["groups"], sets[0]["groups"]);
    assert_eq!(
        t["set_bet"],
        serde_json::json!({"id": id, "name": "Lucky Corners", "mode": "fixed"})
    );
    assert_eq!(t["total_cents"], 1600);
    // Random, at the set's suggested amount: fresh numbers in groups of three.
    let t = json_out(&run(&["--json", "sell", "--set", &set, "--random"]));
    assert_eq!(t["set_bet"]["mode"], "random");
    assert_eq!(t["amount_per_way_cents"], 100);
    let sizes: Vec<usize> = t["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, vec![3, 3, 3]);
    // Replay plays the same set the same way: new random numbers.
    let again = json_out(&run(&["--json", "replay"]));
    assert_eq!(again["set_bet"], t["set_bet"]);
    assert_ne!(again["serial"], t["serial"]);
    // Same shape, fresh numbers (two random picks of nine agree about once in 10^11).
    let again_sizes: Vec<usize> = again["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_array().unwrap().len())
        .collect();
    assert_eq!(again_sizes, vec![3, 3, 3]);
    assert_ne!(again["groups"], t["groups"]);

    // The receipt says SET BET and names the set.
    let out = run(&["sell", "--set", &set, "--amount", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for field in [
        "SOLD",
        "BET-SET BET",
        "SET: LUCKY CORNERS (FIXED)",
        "SELECTION(S): 01 02 03-10 20 30-71 72 73",
        "3/06 $1 (SPECIAL 1)",
        "1/09 $1",
        "TICKET TOTAL $4.00",
    ] {
        assert!(text.contains(field), "{field} missing from\n{text}");
    }
    let reprint = String::from_utf8(run(&["reprint"]).stdout).unwrap();
    assert!(reprint.contains("SET: LUCKY CORNERS (FIXED)"), "{reprint}");

    // Refusals: an unknown set, a wager below the way minimum, --random without a set.
    let out = run(&["sell", "--set", "999", "--amount", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("unknown_set") && err.contains("6.3(h)"),
        "{err}"
    );
    let out = run(&["sell", "--set", "999"]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(&["sell", "--set", &set, "--amount", "0.40"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("below_minimum_wager"));
    assert_eq!(
        run(&["sell", "--random", "--amount", "1"]).status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["sell", "--set", &set, "--spots", "1", "--amount", "1"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn the_counter_screen_sells_checks_and_cancels_in_a_few_keystrokes() {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI must install tmux"
        );
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token, supervisor) = (w.server, w.writer, w.supervisor);
    let state = tempfile::tempdir().unwrap();
    let session = format!("keno-counter-{}", std::process::id());
    let cmd = format!(
        "{} --server {} --token {} --state-dir {}",
        env!("CARGO_BIN_EXE_writer-terminal"),
        s.base,
        token,
        state.path().display()
    );
    assert!(Command::new("tmux")
        .args([
            "new-session",
            "-d",
            "-s",
            &session,
            "-x",
            "110",
            "-y",
            "40",
            &cmd
        ])
        .status()
        .unwrap()
        .success());
    let t = Tmux { session };
    let screen = t.wait_for("OPEN FOR SALE");
    assert!(
        screen.contains("OPERATOR JULIE  TERMINAL 03  SITE 735624"),
        "{screen}"
    );
    assert!(screen.contains("6-spot $2,000.00"), "{screen}");

    // A price first, then Enter sells.
    t.keys("6 45 36 80 $3");
    t.wait_for("TOTAL $3.00 FOR 1 GAME: ENTER to sell, ESC to drop");
    t.key("Enter");
    let screen = t.wait_for("SOLD $3.00");
    assert!(screen.contains("SELECTION(S): 06 36 45 80"), "{screen}");
    let sold: Value = serde_json::from_str(
        &std::fs::read_to_string(state.path().join("last-ticket.json")).unwrap(),
    )
    .unwrap();
    let serial = sold["serial"].as_str().unwrap().to_string();
    assert_eq!(
        s.get_as(&token, &format!("/api/v1/tickets/{serial}")).0,
        200
    );

    // Esc drops a priced sale: nothing sold, and the panel no longer offers it.
    t.keys("qp5 $2 g3");
    t.wait_for("TOTAL $6.00");
    t.key("Escape");
    t.wait_for("dropped: nothing done");
    let screen = t.wait_for("NOTHING WAITING TO SELL");
    assert!(!screen.contains("TO SELL (ENTER sells"), "{screen}");

    // A refusal shows the server's reason; the sale priced before it is set aside, and the
    // panel says so rather than offering it to Enter.
    t.keys("qp5 $2 g3");
    t.wait_for("TO SELL (ENTER sells");
    t.keys("1 2 3 $1.50");
    t.wait_for("REFUSED (invalid_wager_increment)");
    let screen = t.wait_for("NOTHING WAITING TO SELL");
    assert!(!screen.contains("TO SELL (ENTER sells"), "{screen}");

    // Scan the serial, then x cancels it.
    t.keys(&serial);
    t.wait_for(&format!("TICKET {serial}  ACTIVE"));
    t.keys("x");
    // The confirmation says what goes back before anything is done.
    t.wait_for(&format!(
        "CANCEL {serial}: whole ticket, REFUND $3.00? ENTER to confirm"
    ));
    t.key("Enter");
    t.wait_for("CANCELLED 1 game(s): REFUND $3.00");
    let (_, ticket) = s.get_as(&token, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(ticket["status"], "cancelled");
    // Replay sells the same selections again.
    t.keys("r");
    t.wait_for("TOTAL $3.00");
    t.key("Enter");
    t.wait_for("SOLD $3.00 (ticket 2)");
    // A voucher scanned shows its balance; v:CODE in a sale pays with it.
    let code = json_out(&terminal(
        &s.base,
        &token,
        state.path(),
        &["--json", "voucher", "issue", "--amount", "5"],
    ))["code"]
        .as_str()
        .unwrap()
        .to_string();
    t.keys(&code);
    t.wait_for("BALANCE $5.00");
    t.keys(&format!("7 $2 v:{code}"));
    t.wait_for("PAYMENT   TENDERED $2.00, CASH $0.00");
    t.wait_for("TOTAL $2.00 FOR 1 GAME: ENTER to sell");
    t.key("Enter");
    t.wait_for("SOLD $2.00 (ticket 3)");
    t.wait_for(&format!("VOUCHER {code} PAYS $2.00 ($3.00 LEFT ON IT)"));

    // Set bets: the catalogue, then a set with random numbers at the set's amount.
    let id = lucky_corners(&s, &supervisor);
    t.keys("sets");
    t.wait_for(&format!("SET {id}    Lucky Corners"));
    t.keys(&format!("set {id} r"));
    let screen = t.wait_for("TOTAL $4.00 FOR 1 GAME: ENTER to sell");
    assert!(screen.contains("AMOUNT    $1.00 a way"), "{screen}");
    t.key("Enter");
    let screen = t.wait_for("SOLD $4.00 (ticket 4)");
    assert!(screen.contains("BET-SET BET"), "{screen}");
    assert!(screen.contains("SET: LUCKY CORNERS (RANDOM)"), "{screen}");
    t.keys(&format!("set {id} $2 g2"));
    t.wait_for("TOTAL $16.00");
    t.key("Escape");
    t.wait_for("dropped: nothing done");
    t.keys("q");
}

#[test]
fn a_sale_whose_answer_never_comes_is_reported_as_not_confirmed() {
    // A "server" that takes the request and never answers: the sale may have been made.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in silent.incoming().flatten() {
            held.push(conn);
        }
    });
    let state = tempfile::tempdir().unwrap();
    let out = terminal(
        &format!("http://{addr}"),
        "token",
        state.path(),
        &[
            "--timeout",
            "1",
            "sell",
            "--spots",
            "5",
            "--amount",
            "1",
            "--request-id",
            "counter-7-000123",
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("NOT CONFIRMED") && err.contains("--request-id counter-7-000123"),
        "{err}"
    );
}

/// Sells a ticket over HTTP (quicker than the terminal when a test needs many); its serial.
fn sell_http(s: &Server, token: &str, request_id: &str, number: u8) -> String {
    let bet = serde_json::json!({"type": "standard", "spots": [number]});
    let t = s.sell(token, sale(request_id, bet, "standard", 100, 1));
    t["serial"].as_str().unwrap().to_string()
}

#[test]
fn vouchers_from_the_command_line() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token, supervisor) = (w.server, w.writer, w.supervisor);
    let state = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| terminal(&s.base, &token, state.path(), args);

    // A $20 deposit, printed with its code as a barcode. The first answer is lost on the way
    // back: the terminal retries under the same request id and one voucher is issued.
    let printer = state.path().join("voucher.bin");
    let out = terminal(
        &flaky_proxy(&s.base),
        &token,
        state.path(),
        &[
            "--casino",
            "CANBERRA",
            "--print",
            &format!("escpos:file:{}", printer.display()),
            "voucher",
            "issue",
            "--amount",
            "20.00",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("ISSUED (found on retry: one voucher, not two)"),
        "{text}"
    );
    let code = text
        .lines()
        .find_map(|l| l.strip_prefix("VOUCHER No. "))
        .unwrap()
        .trim()
        .to_string();
    assert!(keno_core::serial::is_voucher_code(&code), "{code}");
    let d = decode_escpos(&std::fs::read(&printer).unwrap());
    let printed = d.lines.join("\n");
    for field in [
        "CASINO KENO",
        "VOUCHER",
        "CANBERRA",
        "OPERATOR NAME: JULIE",
        "FOR: A DEPOSIT FOR FUTURE GAMING",
        "$20.00",
        "VALID UNTIL",
        &format!("VOUCHER No. {code}"),
    ] {
        assert!(printed.contains(field), "{field} missing from\n{printed}");
    }
    assert_eq!(d.barcodes, vec![(5u8, code.clone())]);
    assert!(d.cut);

    // Check it; spend $3 of it on a sale.
    let out = run(&["voucher", "check", &code]);
    let check = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && check.contains("BALANCE $20.00") && check.contains("VALID UNTIL"),
        "{check}"
    );
    let t = json_out(&run(&[
        "--json",
        "sell",
        "--spots",
        "7",
        "--amount",
        "3",
        "--tender",
        &format!("voucher:{code}"),
    ]));
    assert_eq!(
        (
            t["payment"]["tendered_cents"].as_i64(),
            t["payment"]["cash_cents"].as_i64(),
            t["payment"]["tenders"][0]["remaining_cents"].as_i64()
        ),
        (Some(300), Some(0), Some(1700))
    );
    // $2 of it on a $5 sale, the rest in cash: the receipt and the screen say so.
    let out = run(&[
        "sell",
        "--spots",
        "8",
        "--amount",
        "5",
        "--tender",
        &format!("voucher:{code}:2.00"),
    ]);
    let sold = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{sold}");
    for field in [
        "PAID BY",
        &format!("VOUCHER {code} PAYS $2.00 ($15.00 LEFT ON IT)"),
        "CASH DUE $3.00",
    ] {
        assert!(sold.contains(field), "{field} missing from\n{sold}");
    }
    // Cash out the $15 left, once.
    let out = run(&["voucher", "cash", &code]);
    let cashed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && cashed.contains("PAID $15.00 CASH"),
        "{cashed}"
    );
    let out = run(&["voucher", "cash", &code]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already_cashed"));
    // Mistyped codes and tenders are caught before they reach the server.
    let mut wrong = code.clone().into_bytes();
    wrong[4] = if wrong[4] == b'9' { b'0' } else { wrong[4] + 1 };
    let wrong = String::from_utf8(wrong).unwrap();
    assert_eq!(run(&["voucher", "check", &wrong]).status.code(), Some(2));
    assert_eq!(
        run(&[
            "sell",
            "--spots",
            "7",
            "--amount",
            "1",
            "--tender",
            &format!("voucher:{wrong}")
        ])
        .status
        .code(),
        Some(2)
    );
    assert_eq!(
        run(&["voucher", "issue", "--amount", "-5"]).status.code(),
        Some(2)
    );

    // A winning ticket paid as a voucher, and one tendered for a sale.
    let serials: Vec<String> = (1..=80)
        .map(|n| sell_http(&s, &token, &format!("cover-{n}"), n))
        .collect();
    let game = s.close_and_settle(&supervisor);
    let winner = |i: usize| serials[game["drawn"][i].as_u64().unwrap() as usize - 1].clone();
    let v = json_out(&run(&["--json", "pay", &winner(0), "--voucher"]));
    assert_eq!(
        (
            v["amount_cents"].as_i64(),
            v["source"].as_str(),
            v["ticket"].as_str()
        ),
        (Some(300), Some("ticket"), Some(winner(0).as_str()))
    );
    let out = run(&["pay", &winner(0)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already_paid"));
    // Tendered for a $1 ticket: the $2 change is a voucher, printed after the receipt (a page of
    // its own in a PDF).
    let printer = state.path().join("change.bin");
    let t = json_out(&run(&[
        "--json",
        "--print",
        &format!("escpos:file:{}", printer.display()),
        "sell",
        "--spots",
        "9",
        "--amount",
        "1",
        "--tender",
        &format!("ticket:{}", winner(1)),
    ]));
    let change = t["payment"]["change_voucher"].as_str().unwrap().to_string();
    assert_eq!(t["payment"]["change_cents"], 200);
    let d = decode_escpos(&std::fs::read(&printer).unwrap());
    let printed = d.lines.join("\n");
    assert!(
        printed.contains("RECEIPT TICKET")
            && printed.contains(&format!("TICKET {}", winner(1)))
            && printed.contains("FOR: CHANGE OF TICKET")
            && printed.contains(&format!("VOUCHER No. {change}")),
        "{printed}"
    );
    assert_eq!(
        d.barcodes,
        vec![
            (5u8, t["serial"].as_str().unwrap().to_string()),
            (5u8, change.clone())
        ]
    );
    let v = json_out(&run(&["--json", "voucher", "check", &change]));
    assert_eq!(
        (v["balance_cents"].as_i64(), v["source"].as_str()),
        (Some(200), Some("change"))
    );
    // The change voucher pays a PDF-printed sale; pdftotext (where installed) reads the code.
    let pdf = state.path().join("voucher.pdf");
    let out = run(&[
        "--print",
        &format!("pdf:{}", pdf.display()),
        "pay",
        &winner(2),
        "--voucher",
    ]);
    assert!(out.status.success());
    let pdftotext = ["/usr/bin/pdftotext", "/usr/local/bin/pdftotext"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    if let Some(pdftotext) = pdftotext {
        let text = Command::new(pdftotext).arg(&pdf).arg("-").output().unwrap();
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(
            text.contains("VOUCHER No.") && text.contains(&format!("WINNING TICKET {}", winner(2))),
            "{text}"
        );
    }
}

#[test]
fn a_lost_ticket_claim_is_filed_shown_and_printed_from_the_command_line() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token, supervisor) = (w.server, w.writer, w.supervisor);
    let state = tempfile::tempdir().unwrap();
    // 1-spot tickets on 1..=40: a draw misses them all about once in 25 million.
    let serials: Vec<String> = (1..=40)
        .map(|n| {
            json_out(&terminal(
                &s.base,
                &token,
                state.path(),
                &["--json", "sell", "--spots", &n.to_string(), "--amount", "1"],
            ))["serial"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let game = s.close_and_settle(&supervisor);
    let number = game["number"].as_i64().unwrap();
    let winner = serials
        .iter()
        .find(|s2| {
            s.get_as(&token, &format!("/api/v1/tickets/{s2}")).1["payable_cents"].as_i64() > Some(0)
        })
        .unwrap()
        .clone();
    let day = game["keno_day"].as_str().unwrap();
    let filed = json_out(&terminal(
        &s.base,
        &token,
        state.path(),
        &[
            "--json",
            "claim",
            "file",
            "--reason",
            "lost",
            "--name",
            "Mary Citizen",
            "--address",
            "1 Example St, Canberra ACT 2601",
            "--phone",
            "02 6200 0000",
            "--place",
            "735624",
            "--date",
            day,
            "--game",
            &number.to_string(),
            "--games",
            "1",
        ],
    ));
    assert_eq!(filed["state"], "submitted");
    // The server shows the counter each matching ticket's serial masked but for its last four
    // digits (the serials of unpaid tickets are for the inspector).
    let masked = format!(
        "{}{}",
        "*".repeat(winner.len() - 4),
        &winner[winner.len() - 4..]
    );
    assert!(
        filed["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["serial"] == masked.as_str()),
        "{filed}"
    );
    let id = filed["id"].to_string();
    let out = terminal(&s.base, &token, state.path(), &["claim", "show", &id]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("SUBMITTED") && text.contains(&masked),
        "{text}"
    );
    assert!(!text.contains(winner.as_str()), "{text}");
    let pdf = state.path().join("claim.pdf");
    let out = terminal(
        &s.base,
        &token,
        state.path(),
        &["claim", "form", &id, "--out", pdf.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = Command::new("pdftotext")
        .args([pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("Mary Citizen") && text.contains("Canberra ACT 2601"),
        "{text}"
    );
    // A bad form is refused with the server's words, exit 1, nothing filed.
    let out = terminal(
        &s.base,
        &token,
        state.path(),
        &[
            "claim",
            "file",
            "--reason",
            "lost",
            "--name",
            "X",
            "--address",
            "Y",
            "--phone",
            "Z",
            "--place",
            "735624",
            "--date",
            "yesterday",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid_claim"));
}

/// Rule 1(f), 6.2(a),(b): a ticket of 50 games prints KENO TO GO and its free game, as the
/// printer receives it; one of 49 games prints neither.
#[test]
fn a_keno_to_go_receipt_says_so_with_its_free_games() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token) = (w.server, w.writer);
    let state = tempfile::tempdir().unwrap();
    let printed = |games: &str| {
        let path = state.path().join(format!("receipt-{games}.bin"));
        let printer = format!("escpos:file:{}", path.display());
        let t = json_out(&terminal(
            &s.base,
            &token,
            state.path(),
            &[
                "--json", "--print", &printer, "sell", "--spots", "7", "--amount", "1", "--games",
                games,
            ],
        ));
        (t, decode_escpos(&std::fs::read(&path).unwrap()).lines)
    };
    let (t, lines) = printed("50");
    assert_eq!(
        (t["games"].as_u64(), t["charged_games"].as_u64()),
        (Some(50), Some(49))
    );
    assert_eq!(t["keno_to_go"], true, "the server says so");
    let text = lines.join("\n");
    for field in [
        "KENO TO GO",
        "GAMES 050",
        "FREE GAMES 1",
        "TICKET TOTAL $49.00",
    ] {
        assert!(text.contains(field), "{field} missing from\n{text}");
    }
    assert!(lines.iter().all(|l| l.chars().count() <= 48), "{text}");
    let (t, lines) = printed("49");
    assert_eq!(t["keno_to_go"], false);
    let text = lines.join("\n");
    assert!(
        !text.contains("KENO TO GO") && !text.contains("FREE GAMES"),
        "{text}"
    );
}

/// Starts the counter in tmux against `s` as `token`; `None` without tmux.
fn counter(s: &Server, token: &str, state: &std::path::Path, name: &str) -> Option<Tmux> {
    in_tmux(
        name,
        &format!(
            "--server {} --token {token} --state-dir {}",
            s.base,
            state.display()
        ),
    )
}

/// Starts the counter in tmux with `args`; `None` without tmux.
fn in_tmux(name: &str, args: &str) -> Option<Tmux> {
    in_tmux_sized(name, args, (110, 50))
}

/// Starts the counter in tmux with `args` on a screen of `(columns, rows)`; `None` without
/// tmux.
fn in_tmux_sized(name: &str, args: &str, (columns, rows): (u16, u16)) -> Option<Tmux> {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI must install tmux"
        );
        eprintln!("skipped: tmux is not installed");
        return None;
    }
    let session = format!("keno-{name}-{}", std::process::id());
    let cmd = format!("{} {args}", env!("CARGO_BIN_EXE_writer-terminal"));
    let started = Command::new("tmux")
        .args([
            "new-session",
            "-d",
            "-s",
            &session,
            "-x",
            &columns.to_string(),
            "-y",
            &rows.to_string(),
            &cmd,
        ])
        .status()
        .unwrap();
    assert!(started.success());
    Some(Tmux { session })
}

/// Issue 16 (8), issue 19: a ticket of three games, the first settled, the second invalidated
/// (rule 17.3), the third cancelled (rule 8.2), reads so wherever it is shown: the writer's
/// check (its real status, the games closed and their refunds), the reprinted receipt as the
/// printer receives it, and the counter's ticket panel.
#[test]
fn games_cancelled_and_invalidated_show_on_the_check_the_reprint_and_the_counter() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let (s, token, supervisor) = (w.server, w.writer, w.supervisor);
    let state = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| terminal(&s.base, &token, state.path(), args);
    let t = json_out(&run(&[
        "--json", "sell", "--spots", "1,2,3,4", "--amount", "2", "--games", "3",
    ]));
    let serial = t["serial"].as_str().unwrap().to_string();
    let first = s.close_and_settle(&supervisor)["number"].as_i64().unwrap();
    let (status, inv) = s.post(
        &supervisor,
        &format!("/api/v1/games/{}/invalidate", first + 1),
        serde_json::json!({"reason": "fire alarm"}),
    );
    assert_eq!(status, 200, "{inv}");
    let out = run(&["cancel", &serial]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The writer's check: not ACTIVE, every game closed with its refund.
    let check = String::from_utf8(run(&["check", &serial]).stdout).unwrap();
    for field in [
        format!("TICKET {serial}  PART CANCELLED"),
        format!("GAME {:<8} INVALIDATED", first + 1),
        "REFUND $2.00".into(),
        format!("GAME {:<8} CANCELLED", first + 2),
        "REFUNDED $2.00".into(),
    ] {
        assert!(check.contains(&field), "{field:?} missing from\n{check}");
    }

    // The reprint, as the printer receives it.
    let path = state.path().join("reprint.bin");
    let printer = format!("escpos:file:{}", path.display());
    let out = run(&["--print", &printer, "reprint"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = decode_escpos(&std::fs::read(&path).unwrap()).lines;
    let printed = lines.join("\n");
    let cancelled = format!("CANCELLED GAME {},", first + 2);
    let invalidated = format!("GAME {} INVALIDATED,", first + 1);
    for (games, refund) in [(&cancelled, "REFUND $2.00"), (&invalidated, "REFUND $2.00")] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(games.as_str()) && l.ends_with(refund)),
            "{games} {refund} missing from\n{printed}"
        );
    }
    assert!(lines.iter().all(|l| l.chars().count() <= 48), "{printed}");

    // The counter: the serial scanned shows the same; rp reprints with the games closed.
    let Some(counter) = counter(&s, &token, state.path(), "closed") else {
        return;
    };
    counter.wait_for("OPEN FOR SALE");
    counter.keys(&serial);
    let screen = counter.wait_for(&format!("TICKET {serial}  PART CANCELLED"));
    for field in [
        format!("GAME {:<8} INVALIDATED", first + 1),
        format!("GAME {:<8} CANCELLED", first + 2),
        "REFUNDED $2.00".into(),
    ] {
        assert!(screen.contains(&field), "{field:?} missing from\n{screen}");
    }
    counter.keys("rp");
    counter.wait_for(&cancelled);
    counter.keys("q");
}

/// The terminal at a registered terminal (issue 17): its credential, the session kept in
/// `state` (a file of the test's own rather than `$XDG_RUNTIME_DIR`).
fn registered(base: &str, credential: &str, state: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_writer-terminal"));
    command.args([
        "--server",
        base,
        "--credential",
        credential,
        "--state-dir",
        state.to_str().unwrap(),
        "--session-file",
        state.join("session.json").to_str().unwrap(),
    ]);
    command
}

fn at_terminal(base: &str, credential: &str, state: &std::path::Path, args: &[&str]) -> Output {
    registered(base, credential, state)
        .args(args)
        .output()
        .unwrap()
}

/// `sign-on` with the writer's PIN typed on standard input (not on the command line).
fn sign_on(base: &str, credential: &str, state: &std::path::Path, writer: &Staff) -> Output {
    let mut child = registered(base, credential, state)
        .args(["sign-on", "--staff-id", &writer.staff_id])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{}\n", writer.secret).as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `sign-on`, then `shift open` with an empty drawer: a writer's acts at the counter need one
/// (`--cash-needs-shift`).
fn signed_on_with_a_shift(base: &str, credential: &str, state: &std::path::Path, writer: &Staff) {
    let out = sign_on(base, credential, state, writer);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = at_terminal(base, credential, state, &["shift", "open", "--float", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The session's token as the terminal keeps it, for a test's own HTTP calls as that writer.
fn session_token(state: &std::path::Path) -> String {
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("session.json")).unwrap())
            .unwrap();
    kept["token"].as_str().unwrap().to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A PIN that is not `writer`'s.
fn wrong_pin(writer: &Staff) -> &'static str {
    if writer.secret == "000000" {
        "111111"
    } else {
        "000000"
    }
}

#[test]
fn a_writer_signs_on_sells_and_signs_off_at_a_registered_terminal() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let credential = db.terminal("735624", "03");
    let julie = db.staff("writer", "JULIE");
    let s = Server::start(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| at_terminal(&s.base, &credential, state.path(), args);
    let sell = || run(&["--json", "sell", "--spots", "6,45", "--amount", "2"]);

    // Nobody signed on: nothing is sold.
    let out = sell();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("NOT SIGNED ON"), "{}", stderr(&out));
    // A wrong PIN is refused in the server's words.
    let out = run(&[
        "sign-on",
        "--staff-id",
        &julie.staff_id,
        "--pin",
        wrong_pin(&julie),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("REFUSED (sign_on_failed): sign-on refused: check the staff ID"),
        "{}",
        stderr(&out)
    );

    // The PIN typed (from standard input here): signed on at terminal 03 of site 735624.
    let out = sign_on(&s.base, &credential, state.path(), &julie);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains(&format!(
            "SIGNED ON: JULIE (STAFF {}, WRITER)  TERMINAL 03  SITE 735624",
            julie.staff_id
        )),
        "{text}"
    );
    assert!(!text.contains(&julie.secret), "{text}");
    let file = state.path().join("session.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let who = json_out(&run(&["--json", "whoami"]));
    assert_eq!(
        (who["name"].as_str(), who["terminal"].as_str()),
        (Some("JULIE"), Some("03"))
    );
    // No cash moves at a counter without the writer's shift: she opens one.
    let out = sell();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("REFUSED (no_shift)"),
        "{}",
        stderr(&out)
    );
    assert!(run(&["shift", "open", "--float", "0"]).status.success());
    // Sold by the person signed on, at this terminal.
    let t = json_out(&sell());
    assert_eq!(
        (
            t["writer"].as_str(),
            t["site"].as_str(),
            t["terminal"].as_str()
        ),
        (Some("JULIE"), Some("735624"), Some("03"))
    );

    // Sign-off: the session ends and is forgotten; nothing more is sold.
    let ended = std::fs::read(&file).unwrap();
    let out = run(&["sign-off"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("SIGNED OFF: JULIE"));
    assert!(!file.exists());
    let out = sell();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("NOT SIGNED ON"), "{}", stderr(&out));
    // A session the server has ended (a copy left behind) is refused in the server's words, and
    // forgotten.
    std::fs::write(&file, &ended).unwrap();
    let out = sell();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("SESSION ENDED: the session was signed off: sign on again"),
        "{}",
        stderr(&out)
    );
    assert!(!file.exists());

    // Signed on again, then the same writer signs on elsewhere: this session ends, said so.
    assert!(sign_on(&s.base, &credential, state.path(), &julie)
        .status
        .success());
    s.session(Some(&credential), &julie);
    let out = sell();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("SESSION ENDED: the session ended: the same person signed on elsewhere"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_shift_opens_and_closes_balanced_from_the_command_line() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let credential = db.terminal("735624", "03");
    let julie = db.staff("writer", "JULIE");
    let supervisor = db.principal("supervisor", "SUPER", None);
    let s = Server::start(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| at_terminal(&s.base, &credential, state.path(), args);
    assert!(sign_on(&s.base, &credential, state.path(), &julie)
        .status
        .success());

    let out = run(&["shift"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no_shift"), "{}", stderr(&out));
    let opened = json_out(&run(&["--json", "shift", "open", "--float", "500.00"]));
    assert_eq!(
        (opened["state"].as_str(), opened["float_cents"].as_i64()),
        (Some("open"), Some(50_000))
    );
    json_out(&run(&[
        "--json",
        "sell",
        "--spots",
        "6,45,36,80",
        "--amount",
        "3",
    ]));
    let out = run(&["shift"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("IN DRAWER $503.00 (FLOAT $500.00)"), "{text}");
    assert!(
        text.contains("+ CASH FROM SALES") && text.contains("$3.00"),
        "{text}"
    );

    // The float and the one sale, counted to the cent: balanced.
    let out = run(&["shift", "close", "--counted", "503.00"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains("CLOSED: COUNTED $503.00, EXPECTED $503.00, BALANCED"),
        "{text}"
    );
    let (_, closed) = s.get_as(&supervisor, "/api/v1/shifts");
    let closed = &closed.as_array().unwrap()[0];
    assert_eq!(
        (
            closed["state"].as_str(),
            closed["expected_cents"].as_i64(),
            closed["over_short_cents"].as_i64()
        ),
        (Some("closed"), Some(50_300), Some(0)),
        "{closed}"
    );
}

/// A supervisor's approval given as options, with `code` of the moment: the password is read
/// from `KENO_SUPERVISOR_PASSWORD`, which the caller sets.
fn approved_by(supervisor: &Staff, code: &str, reason: &str) -> Vec<String> {
    [
        "--supervisor",
        &supervisor.staff_id,
        "--supervisor-password-env",
        "KENO_SUPERVISOR_PASSWORD",
        "--supervisor-code",
        code,
        "--reason",
        reason,
    ]
    .map(str::to_string)
    .to_vec()
}

/// Writer OMAR at site 111111 cancels a ticket JULIE sold at site 735624: refused, then
/// approved by supervisor ANN at his counter (her credentials given as options) and cancelled.
#[test]
fn another_sites_ticket_is_cancelled_with_a_supervisors_approval() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let (here, there) = (db.terminal("735624", "03"), db.terminal("111111", "01"));
    let (julie, omar) = (db.staff("writer", "JULIE"), db.staff("writer", "OMAR"));
    let ann = db.staff("supervisor", "ANN");
    let s = Server::start(&db, MANUAL_CLOCK);
    let julie_token = s.session(Some(&here), &julie);
    let serial = sell_http(&s, &julie_token, "x1", 5);
    let state = tempfile::tempdir().unwrap();
    signed_on_with_a_shift(&s.base, &there, state.path(), &omar);

    // From a script without a supervisor: the server's refusal stands.
    let out = at_terminal(&s.base, &there, state.path(), &["cancel", &serial]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "REFUSED (other_site): ticket {serial} was sold at site 735624"
        )),
        "{}",
        stderr(&out)
    );
    // ANN approves at OMAR's counter: the cancellation is done, carrying her grant.
    let out = registered(&s.base, &there, state.path())
        .args(["cancel", &serial])
        .args(approved_by(&ann, &ann.code(), "bought at the other venue"))
        .env("KENO_SUPERVISOR_PASSWORD", &ann.secret)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "APPROVED by ANN ({}): cancel of ticket {serial}",
            ann.staff_id
        )),
        "{}",
        stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("REFUND $1.00"));
    let (_, ticket) = s.get_as(&julie_token, &format!("/api/v1/tickets/{serial}"));
    assert_eq!(ticket["status"], "cancelled");
}

/// A voucher worth more than the writer's payout limit (issue 31: a cash-out is value going out
/// like a payment): refused alone, then cashed out with supervisor ANN's approval given as
/// options.
#[test]
fn a_voucher_above_the_payout_limit_is_cashed_out_with_a_supervisors_approval() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let here = db.terminal("735624", "03");
    let (julie, ann) = (db.staff("writer", "JULIE"), db.staff("supervisor", "ANN"));
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--writer-payout-limit", "1000"]);
    let s = Server::start(&db, &args);
    let token = s.session(Some(&here), &julie);
    let (status, v) = s.post(
        &token,
        "/api/v1/vouchers",
        serde_json::json!({"request_id": "deposit", "amount_cents": 2500}),
    );
    assert_eq!(status, 201, "{v}");
    let code = v["code"].as_str().unwrap().to_string();
    let state = tempfile::tempdir().unwrap();
    assert!(sign_on(&s.base, &here, state.path(), &julie)
        .status
        .success());
    let out = at_terminal(&s.base, &here, state.path(), &["voucher", "cash", &code]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("REFUSED (approval_required)"),
        "{}",
        stderr(&out)
    );
    let out = registered(&s.base, &here, state.path())
        .args(["voucher", "cash", &code])
        .args(approved_by(&ann, &ann.code(), "a $25 deposit returned"))
        .env("KENO_SUPERVISOR_PASSWORD", &ann.secret)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "APPROVED by ANN ({}): cash_out of voucher {code}",
            ann.staff_id
        )),
        "{}",
        stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("PAID $25.00 CASH"));
}

/// Eighty 1-spot tickets at $100 (one on each number), settled: one of the 20 winners, paying
/// $300, a major prize (rule 1(h): $200 or more). `token` sells, `supervisor` closes the game.
fn major_prize_winner(s: &Server, token: &str, supervisor: &str) -> String {
    let serials: Vec<String> = (1..=80u8)
        .map(|n| {
            let bet = serde_json::json!({"type": "standard", "spots": [n]});
            let t = s.sell(token, sale(&format!("big-{n}"), bet, "standard", 10_000, 1));
            t["serial"].as_str().unwrap().to_string()
        })
        .collect();
    let game = s.close_and_settle(supervisor);
    serials[game["drawn"][0].as_u64().unwrap() as usize - 1].clone()
}

/// A $300 prize above a payout limit of $250: a supervisor approves, and the hand-pay (the
/// claimant, the ID shown, the cheque) is recorded and printed on the payment slip.
#[test]
fn a_major_prize_is_paid_with_its_hand_pay_on_the_slip() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let credential = db.terminal("735624", "03");
    let julie = db.staff("writer", "JULIE");
    let ann = db.staff("supervisor", "ANN");
    let closer = db.principal("supervisor", "SUPER", None);
    let mut args = MANUAL_CLOCK.to_vec();
    args.extend(["--writer-payout-limit", "25000"]);
    let s = Server::start(&db, &args);
    let state = tempfile::tempdir().unwrap();
    signed_on_with_a_shift(&s.base, &credential, state.path(), &julie);
    let winner = major_prize_winner(&s, &session_token(state.path()), &closer);
    let supervisor = |code: &str| approved_by(&ann, code, "a $300 prize");
    let pay = |extra: &[String]| {
        registered(&s.base, &credential, state.path())
            .args(["pay", &winner])
            .args(extra)
            .env("KENO_SUPERVISOR_PASSWORD", &ann.secret)
            .output()
            .unwrap()
    };

    let out = pay(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("REFUSED (approval_required)"),
        "{}",
        stderr(&out)
    );
    // Approved, but a major prize is a hand-pay: from a script without one, refused.
    let out = pay(&supervisor(&ann.code()));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("APPROVED by ANN"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("REFUSED (hand_pay_required)"),
        "{}",
        stderr(&out)
    );

    let path = state.path().join("slip.bin");
    let mut extra = supervisor(&ann.code());
    extra.extend(
        [
            "--claimant",
            "Jo Citizen",
            "--id-kind",
            "driver licence",
            "--id-number",
            "ACT 123456",
            "--cheque-number",
            "000417",
            "--print",
            &format!("escpos:file:{}", path.display()),
        ]
        .map(str::to_string),
    );
    let out = pay(&extra);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PAID $300.00 BY CHEQUE"), "{text}");
    assert!(text.contains("CLAIMANT Jo Citizen"), "{text}");
    // The slip as the printer received it.
    let slip = decode_escpos(&std::fs::read(&path).unwrap()).lines;
    let printed = slip.join("\n");
    for (label, value) in [
        ("CLAIMANT", "Jo Citizen"),
        ("ID", "DRIVER LICENCE ACT 123456"),
        ("CHEQUE No.", "000417"),
        ("PAID", "$300.00"),
    ] {
        assert!(
            slip.iter()
                .any(|l| l.starts_with(label) && l.trim_end().ends_with(value)),
            "{label} {value} missing from\n{printed}"
        );
    }
    assert!(
        printed.contains(&format!("SERIAL No. {winner}")),
        "{printed}"
    );
    // The ticket's detail shows the hand-pay.
    let out = at_terminal(&s.base, &credential, state.path(), &["check", &winner]);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("HAND-PAY TO Jo Citizen (DRIVER LICENCE ACT 123456), CHEQUE No. 000417"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The counter at a registered terminal (issue 17): the sign-on screen, the writer's name in
/// the header, the shift's drawer kept up to date, a supervisor's approval typed at the counter
/// for another site's ticket, a major prize's hand-pay, `so`, and a session the server ended
/// said plainly.
#[test]
fn the_counter_signs_a_writer_on_and_off_and_asks_a_supervisor() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let (here, there) = (db.terminal("735624", "03"), db.terminal("111111", "01"));
    let (julie, omar) = (db.staff("writer", "JULIE"), db.staff("writer", "OMAR"));
    let ann = db.staff("supervisor", "ANN");
    let closer = db.principal("supervisor", "SUPER", None);
    let s = Server::start(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let args = format!(
        "--server {} --credential {here} --state-dir {dir} --session-file {dir}/session.json",
        s.base,
        dir = state.path().display()
    );
    let Some(t) = in_tmux("sign-on", &args) else {
        return;
    };
    // The sign-on screen, the game live above it.
    let screen = t.wait_for("NOT SIGNED ON: type your staff ID and PIN");
    assert!(
        screen.contains("SIGN ON") && screen.contains("STAFF ID:"),
        "{screen}"
    );
    t.wait_for("OPEN FOR SALE");
    // A wrong PIN is refused in the server's words; the staff ID stays, the PIN is typed again.
    t.keys(&julie.staff_id);
    t.keys(wrong_pin(&julie));
    t.wait_for("REFUSED (sign_on_failed)");
    t.keys(&julie.secret);
    let screen = t.wait_for("OPERATOR JULIE  TERMINAL 03  SITE 735624");
    // Issue 19: the session in the header, since when and when it ends.
    t.wait_for("SESSION SINCE ");
    t.wait_for(": IDLE SIGN-OFF IN ");
    assert!(!screen.contains(&julie.secret), "{screen}");
    t.wait_for("NO SHIFT OPEN");
    // The command line shares the session.
    let out = at_terminal(&s.base, &here, state.path(), &["whoami"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("SIGNED ON: JULIE"));

    // The shift: opened with the float, the drawer after a sale.
    t.keys("shift open 500");
    t.wait_for("OPEN: SALES $0.00 PAID $0.00 IN DRAWER $500.00 (FLOAT $500.00)");
    t.keys("6 45 36 80 $3");
    t.wait_for("ENTER to sell");
    t.key("Enter");
    t.wait_for("SOLD $3.00");
    t.wait_for("IN DRAWER $503.00");

    // A ticket OMAR sold at site 111111: ANN approves its check, then its cancellation, here.
    let serial = sell_http(&s, &s.session(Some(&there), &omar), "o1", 7);
    t.keys(&serial);
    t.wait_for("SUPERVISOR'S APPROVAL");
    t.wait_for(&format!("ticket {serial} was sold at site 111111"));
    let approve = |why: &str| {
        t.keys(&ann.staff_id);
        t.keys(&ann.secret);
        t.keys(&ann.code());
        t.keys(why);
    };
    approve("player bought it at the other venue");
    t.wait_for(&format!("TICKET {serial}  ACTIVE"));
    t.keys("x");
    t.wait_for(&format!(
        "CANCEL {serial}: whole ticket, REFUND $1.00? ENTER to confirm"
    ));
    t.key("Enter");
    let screen = t.wait_for("A supervisor approves CANCEL");
    assert!(!screen.contains(&ann.secret), "{screen}");
    approve("the player's own ticket");
    t.wait_for("CANCELLED 1 game(s): REFUND $1.00");
    t.wait_for("IN DRAWER $502.00");

    // A major prize: the hand-pay is typed before it is paid, and is on the slip.
    let winner = major_prize_winner(&s, &session_token(state.path()), &closer);
    t.keys(&winner);
    t.wait_for(&format!("TICKET {winner}  ACTIVE"));
    t.keys("p");
    t.wait_for("ENTER to confirm");
    t.key("Enter");
    t.wait_for("REFUSED (hand_pay_required)");
    t.keys("Jo Citizen");
    t.keys("passport");
    t.keys("PA1234567");
    t.keys("000418");
    let screen = t.wait_for("PAID $300.00 BY CHEQUE");
    assert!(
        screen.contains("Jo Citizen") && screen.contains("PASSPORT PA1234567"),
        "{screen}"
    );

    // `?` and `rp` say what the screen shows on the bottom line (it kept the last answer).
    t.keys("?");
    t.wait_for("HELP: the commands are above");
    t.keys("rp");
    t.wait_for("REPRINT of ticket");

    // Closing the shift shows the drawer and the count against it first; ESC keeps it open.
    t.keys("shift close 515");
    t.wait_for("CLOSE the shift with $515.00 counted (expected $");
    t.key("Escape");
    t.wait_for("dropped: nothing done");
    let (status, open) = s.get_as(&session_token(state.path()), "/api/v1/shifts/current");
    assert_eq!(
        (status, open["state"].as_str()),
        (200, Some("open")),
        "{open}"
    );
    let expected = open["expected_cents"].as_i64().unwrap();
    t.keys(&format!(
        "shift close {}.{:02}",
        expected / 100,
        expected % 100
    ));
    t.wait_for("BALANCED)? ENTER to confirm");
    t.key("Enter");
    t.wait_for("CLOSED");

    // so: signed off, the sign-on screen again.
    t.keys("so");
    t.wait_for("SIGNED OFF: JULIE");
    t.wait_for("KENO WRITER  NOT SIGNED ON");
    assert!(!state.path().join("session.json").exists());
    // Signed on again; the same writer signs on elsewhere: the counter says so, in the
    // server's words, and asks for a sign-on.
    t.keys(&julie.staff_id);
    t.keys(&julie.secret);
    t.wait_for("OPERATOR JULIE");
    s.session(Some(&here), &julie);
    t.keys("shift");
    t.wait_for("SESSION ENDED: the session ended: the same person signed on elsewhere");
    t.wait_for("KENO WRITER  NOT SIGNED ON");
}

/// Issue 19: a token typed twice is said, never a silent replacement of the first (the writer
/// who typed `c2 c3` meant every combination of 2 and of 3 groups, and was sold only c3's); the
/// combinations go in one `c`, as `?` shows, and nothing is sold on the mistake.
#[test]
fn the_counter_refuses_a_token_typed_twice_and_sells_nothing() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let Some(t) = counter(&w.server, &w.writer, state.path(), "twice") else {
        return;
    };
    t.wait_for("OPEN FOR SALE");
    t.keys("w 1 2-3 4-5 6-7 8 c2 c3 $1");
    let screen = t.wait_for("a second combination");
    assert!(
        screen.contains("c2,3") && !screen.contains("ENTER to sell"),
        "{screen}"
    );
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM tickets"), 0);
    // The line is kept for mending; Ctrl-U empties it.
    assert!(screen.contains("> w 1 2-3 4-5 6-7 8 c2 c3 $1"), "{screen}");
    t.key("C-u");
    t.keys("?");
    t.wait_for("each token typed once: c2,3");
    t.keys("w 1 2-3 4-5 6-7 8 c2,3 $1");
    // Every combination of 2 of the 4 groups and of 3: 6 + 4 = 10 ways at $1.
    t.wait_for("WAYS      6 x 4-spot (standard), 4 x 6-spot (special1)");
    t.wait_for("TOTAL $10.00 FOR 1 GAME: ENTER to sell");
    t.key("Enter");
    t.wait_for("SOLD $10.00");
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM tickets"), 1);
}

/// The header's line of the draw as the screen shows it: the game and its numbers.
fn drawn_line(screen: &str) -> Option<(i64, Vec<i64>)> {
    let line = screen.lines().find(|l| l.contains(" DRAWN:"))?;
    let (head, numbers) = line.split_once(" DRAWN:")?;
    let game = head
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .trim()
        .parse()
        .ok()?;
    let numbers = numbers
        .split_whitespace()
        .map_while(|n| n.trim_end_matches('│').parse().ok())
        .collect();
    Some((game, numbers))
}

/// Issue 19: a game closed early while the one before is still being drawn never mixes the two
/// draws on the counter's header: each moment it shows one game's numbers, exactly the first
/// ones of that game's record, and the closed game's draw after the other's last number.
#[test]
fn the_counter_never_mixes_two_draws() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let slow_draw = [
        "--game-interval",
        "3600",
        "--reveal-interval",
        "0.25",
        "--keno-day-start",
        "00:00",
        "--keno-day-end",
        "00:00",
    ];
    let w = world(&db, &slow_draw);
    let s = &w.server;
    let state = tempfile::tempdir().unwrap();
    let Some(t) = counter(s, &w.writer, state.path(), "two-draws") else {
        return;
    };
    t.wait_for("OPEN FOR SALE");
    let close = || {
        s.post(&w.supervisor, "/api/v1/games/current/close", Value::Null)
            .1["number"]
            .as_i64()
            .unwrap()
    };
    let drawn = |game: i64| -> Vec<i64> {
        s.get(&format!("/api/v1/games/{game}")).1["drawn"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_i64().unwrap())
            .collect()
    };
    let first = close();
    s.wait_for("a few numbers of the first draw", || {
        drawn(first).len() >= 3
    });
    let second = close();
    let start = Instant::now();
    let mut seen = std::collections::BTreeSet::new();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the draws never ended: {seen:?}"
        );
        let screen = t.screen();
        let Some((game, numbers)) = drawn_line(&screen) else {
            continue;
        };
        // Read after the screen: the record holds at least what was shown.
        let record = drawn(game);
        assert!(
            numbers.len() <= record.len() && record[..numbers.len()] == numbers[..],
            "the header shows game {game} as {numbers:?}, its record is {record:?}:\n{screen}"
        );
        seen.insert((game, numbers.len()));
        if game == second && numbers.len() == 20 {
            break;
        }
        std::thread::sleep(Duration::from_millis(60));
    }
    assert!(seen.iter().any(|&(g, n)| g == first && n == 20), "{seen:?}");
}

/// Issue 19: with the server gone the header says OFFLINE and for how long, never a game open
/// for sale it cannot vouch for; once the server is back the game comes back from its record.
#[test]
fn the_counter_says_offline_while_the_server_is_gone() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let listen = format!("127.0.0.1:{}", keno_testkit::free_port());
    let server = Server::start_on(&db, &listen, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let Some(t) = counter(&server, &writer, state.path(), "offline") else {
        return;
    };
    t.wait_for("GAME 1 OPEN FOR SALE");
    server.kill();
    let screen = t.wait_for("OFFLINE: no answer from the server for");
    assert!(!screen.contains("OPEN FOR SALE"), "{screen}");
    t.wait_for("for 3 s");
    let _back = Server::start_on(&db, &listen, MANUAL_CLOCK);
    let screen = t.wait_for("GAME 1 OPEN FOR SALE");
    assert!(!screen.contains("OFFLINE"), "{screen}");
}

/// Issue 19: the entry line edits as a shell's does (tui-input): a mistake keeps the line with
/// the token at fault marked, Ctrl-U empties it, Up recalls the last line, Ctrl-W takes its last
/// word, and Ctrl-C quits.
#[test]
fn the_entry_line_keeps_a_mistake_and_edits_like_a_shell() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let Some(t) = counter(&w.server, &w.writer, state.path(), "editing") else {
        return;
    };
    t.wait_for("OPEN FOR SALE");
    t.keys("6 4x $1");
    let screen = t.wait_for("is not a number");
    assert!(screen.contains("> 6 4x $1"), "the line is kept:\n{screen}");
    // The token at fault in reverse video (the pane with its attributes).
    let styled = Command::new("tmux")
        .args(["capture-pane", "-p", "-e", "-t", &t.session])
        .output()
        .unwrap();
    let styled = String::from_utf8_lossy(&styled.stdout);
    assert!(styled.contains("\u{1b}[7m4x"), "4x is marked:\n{styled:?}");
    t.key("C-u");
    t.wait_for("> \u{20}");
    let entry = |screen: &str| {
        screen
            .lines()
            .find_map(|l| {
                l.split_once("│> ")
                    .map(|(_, e)| e.trim_end_matches(['│', ' ']).to_string())
            })
            .unwrap_or_default()
    };
    let start = Instant::now();
    while !entry(&t.screen()).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "Ctrl-U left {:?}",
            entry(&t.screen())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    t.keys("6 45 $1");
    t.wait_for("TOTAL $1.00");
    t.key("Escape");
    t.key("Up");
    let start = Instant::now();
    while entry(&t.screen()) != "6 45 $1" {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "Up recalled {:?}",
            entry(&t.screen())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    t.key("C-w");
    let start = Instant::now();
    // A word as tui-input has it: the amount's digits, the sign stays.
    while entry(&t.screen()) != "6 45 $" {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "Ctrl-W left {:?}",
            entry(&t.screen())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    t.keys("2");
    t.wait_for("TOTAL $2.00");
    t.key("C-c");
    let start = Instant::now();
    while Command::new("tmux")
        .args(["has-session", "-t", &t.session])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success()
    {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "Ctrl-C did not quit:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Issue 19: before the second Enter the counter shows the ticket as it will be sold; a game
/// closed meanwhile is said, and the ticket shown again for the game it would play, before
/// anything is sold.
#[test]
fn the_counter_shows_the_ticket_and_asks_again_when_the_game_changes() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let Some(t) = counter(&w.server, &w.writer, state.path(), "asks-again") else {
        return;
    };
    t.wait_for("GAME 1 OPEN FOR SALE");
    t.keys("6 45 36 80 $3 g2");
    let screen = t.wait_for("TO SELL");
    for line in [
        "NUMBERS   06 36 45 80",
        "1 x 4-spot (standard)",
        "$3.00 a way",
        "GAMES     2: 1 to 2",
        "TOTAL     $6.00",
    ] {
        assert!(screen.contains(line), "{line}:\n{screen}");
    }
    let (status, _) = w
        .server
        .post(&w.supervisor, "/api/v1/games/current/close", Value::Null);
    assert_eq!(status, 200);
    t.wait_for("GAME 2 OPEN FOR SALE");
    t.key("Enter");
    let screen = t.wait_for("THE GAME HAS CHANGED: it would play from game 2");
    assert!(screen.contains("GAMES     2: 2 to 3"), "{screen}");
    assert_eq!(
        db.query_i64("SELECT COUNT(*) AS n FROM tickets"),
        0,
        "nothing sold yet"
    );
    t.key("Enter");
    t.wait_for("SOLD");
    assert_eq!(db.query_i64("SELECT MIN(first_game) AS n FROM tickets"), 2);
}

/// Every 1-spot ticket on the board, `games` games at $1 (20 win each game), sold over HTTP.
fn cover_the_board(s: &Server, token: &str, games: u32) -> Vec<String> {
    (1..=80)
        .map(|n| {
            let body = sale(
                &format!("cover-{n}"),
                serde_json::json!({"type": "standard", "spots": [n]}),
                "standard",
                100,
                games,
            );
            s.sell(token, body)["serial"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Issue 19: the counter's ticket panel is the server's one payability rule. A multi-game
/// ticket's early win reads "PAID AFTER GAME N" (rule 11.5) and `p` is not offered, nor
/// confirmed; once payable, `p` pays and the panel shows the ticket PAID, how and when, under
/// the slip, and `p` again says there is nothing to pay; a cancellation shows the ticket
/// CANCELLED at once.
#[test]
fn the_counter_ticket_panel_follows_the_payment_and_the_cancellation() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let serials = cover_the_board(&w.server, &w.writer, 2);
    let first = w.server.close_and_settle(&w.supervisor);
    let game = first["number"].as_i64().unwrap();
    let winner = &serials[first["drawn"][0].as_u64().unwrap() as usize - 1];
    let state = tempfile::tempdir().unwrap();
    let Some(t) = counter(&w.server, &w.writer, state.path(), "follows") else {
        return;
    };
    t.wait_for("OPEN FOR SALE");
    t.keys(winner);
    let screen = t.wait_for(&format!("TICKET {winner}  ACTIVE"));
    let won = format!("GAME {game:<8} WON");
    let waiting = format!("$3.00 PAID AFTER GAME {}", game + 1);
    for line in [won.as_str(), waiting.as_str(), "TO COME"] {
        assert!(screen.contains(line), "{line}:\n{screen}");
    }
    t.wait_for(&format!(
        "PAYABLE AFTER GAME {}; x cancels its games to come",
        game + 1
    ));
    t.keys("p");
    let screen = t.wait_for(&format!(
        "ticket {winner}: PAYABLE AFTER GAME {}: nothing to pay",
        game + 1
    ));
    assert!(!screen.contains("ENTER to confirm"), "{screen}");

    w.server.close_and_settle(&w.supervisor);
    t.keys(winner);
    t.wait_for("p pays $");
    t.keys("p");
    t.wait_for("ENTER to confirm");
    t.key("Enter");
    let screen = t.wait_for(&format!("TICKET {winner}  PAID"));
    assert!(screen.contains("PAYMENT SLIP"), "{screen}");
    assert!(screen.contains("$3.00 PAID"), "{screen}");
    assert!(screen.contains(" IN CASH ON "), "{screen}");
    t.keys("p");
    t.wait_for(&format!("ticket {winner}: PAID $"));
    let screen = t.wait_for("nothing to pay");
    assert!(!screen.contains("ENTER to confirm"), "{screen}");

    // A ticket of two games cancelled: CANCELLED at once, each game with its refund.
    let sold = w.server.sell(
        &w.writer,
        sale(
            "two",
            serde_json::json!({"type": "standard", "spots": [4, 5, 6]}),
            "standard",
            200,
            2,
        ),
    );
    let two = sold["serial"].as_str().unwrap();
    t.keys(two);
    t.wait_for(&format!("TICKET {two}  ACTIVE"));
    t.wait_for("NOTHING PAYABLE YET; x cancels its games to come");
    t.keys("x");
    t.wait_for("ENTER to confirm");
    t.key("Enter");
    let screen = t.wait_for(&format!("TICKET {two}  CANCELLED"));
    assert!(screen.contains("CANCELLATION SLIP"), "{screen}");
    assert!(
        screen.contains(&format!("GAME {:<8} CANCELLED", game + 2)),
        "{screen}"
    );
    assert!(screen.contains("REFUNDED $2.00"), "{screen}");
    t.keys("q");
}

/// Issue 19: on an 80x24 screen a sale typed without an amount is at the default (`amt $2`),
/// and the serial, the games and the total stay on the screen; `ls` lists this terminal's last
/// sales; `xl` shows the last ticket sold and cancels it only on Enter; `claim` takes the
/// Unclaimed Prize Claim Form's fields one after the other and files it.
#[test]
fn the_counter_at_80x24_sells_at_a_default_amount_lists_cancels_the_last_and_files_a_claim() {
    the_counter_sells_lists_cancels_and_files_a_claim_at((80, 24));
}

/// Issue 34 (11): the same at 120x40, a larger counter screen: nothing is cut or spread apart.
#[test]
fn the_counter_at_120x40_sells_at_a_default_amount_lists_cancels_the_last_and_files_a_claim() {
    the_counter_sells_lists_cancels_and_files_a_claim_at((120, 40));
}

fn the_counter_sells_lists_cancels_and_files_a_claim_at((columns, rows): (u16, u16)) {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let args = format!(
        "--server {} --token {} --state-dir {}",
        w.server.base,
        w.writer,
        state.path().display()
    );
    let Some(t) = in_tmux_sized(&format!("{columns}x{rows}"), &args, (columns, rows)) else {
        return;
    };
    t.wait_for("OPEN FOR SALE");
    t.keys("6 45 36 80 g3");
    t.wait_for("or set a default: amt $2");
    t.key("C-u");
    t.keys("amt $2");
    t.wait_for("DEFAULT $2.00 A WAY: a sale typed without $ is at it");
    // A status longer than the screen is wide is shown whole: at 80 columns, on two lines.
    t.keys("set");
    let screen = t.wait_for("r for random numbers");
    let joined: Vec<&str> = screen.lines().map(str::trim_end).collect();
    assert!(
        joined.join(" ").contains("and the amount: set 3 r $2"),
        "{screen}"
    );
    t.key("C-u");
    t.keys("6 45 36 80 g3");
    t.wait_for("TOTAL     $6.00");
    // The price's status line whole, its keys included (it was cut at "ESC to dr").
    t.wait_for("TOTAL $6.00 FOR 3 GAMES: ENTER to sell, ESC to drop");
    t.key("Enter");
    t.wait_for("SOLD $6.00");
    let serial = db.query_text("SELECT serial AS s FROM tickets");
    let screen = t.screen();
    for line in [
        format!("SOLD No. 000001  SERIAL {serial}"),
        "GAMES 1 TO 3 (3)  TOTAL $6.00".to_string(),
        "DEFAULT $2.00 A WAY".to_string(),
    ] {
        assert!(screen.contains(&line), "{line}:\n{screen}");
    }
    assert!(screen.lines().count() <= rows as usize, "{screen}");
    assert!(
        screen
            .lines()
            .all(|l| l.chars().count() <= columns as usize),
        "{screen}"
    );
    // The header's shift line whole, and help with every line whole (issue 34, item 11).
    assert!(screen.contains("(FLOAT $0.00)"), "{screen}");
    t.keys("?");
    let screen = t.wait_for("HELP: the commands are above");
    for line in [
        "6 45 36 80 $3       standard (g5: five games; s1 s2 s3 j: other schedules)",
        "scan FILE  q        a scanned entry form; quit (each token typed once: c2,3)",
    ] {
        assert!(screen.contains(line), "{line}:\n{screen}");
    }

    t.keys("ls");
    let screen = t.wait_for("the last 1 sale(s) of this terminal");
    assert!(
        screen.contains(&format!("000001  {serial}  1-3")) && screen.contains("$6.00  ACTIVE"),
        "{screen}"
    );

    t.keys("xl");
    let screen = t.wait_for(&format!(
        "CANCEL {serial}: whole ticket, REFUND $6.00? ENTER to confirm"
    ));
    assert!(
        screen.contains(&format!("TICKET {serial}  ACTIVE")),
        "{screen}"
    );
    let status = || db.query_text("SELECT status AS s FROM tickets");
    assert_eq!(status(), "active", "nothing cancelled before Enter");
    t.key("Enter");
    t.wait_for("CANCELLED 3 game(s): REFUND $6.00");
    assert_eq!(status(), "cancelled");

    let (_, game) = w.server.get("/api/v1/games/current");
    t.keys("claim");
    t.wait_for("UNCLAIMED PRIZE CLAIM FORM");
    for field in [
        "lost",
        "Jo Citizen",
        "1 Main St, Sydney",
        "0400 000 000",
        "735624",
        game["keno_day"].as_str().unwrap(),
    ] {
        t.keys(field);
    }
    for _ in 0..4 {
        t.key("Enter");
    }
    t.wait_for("CLAIM 1 FILED");
    let (status, claim) = w.server.get_as(&w.supervisor, "/api/v1/claims/1");
    assert_eq!(status, 200, "{claim}");
    assert_eq!(claim["claimant_name"], "Jo Citizen");
    assert_eq!(claim["postal_address"], "1 Main St\nSydney");
    // A quick pick's numbers stay on the screen above its receipt (issue 34, item 11).
    t.keys("qp15 $1");
    t.wait_for("ENTER to sell");
    t.key("Enter");
    let screen = t.wait_for("SOLD $1.00");
    let picked =
        db.query_text("SELECT groups_json AS s FROM tickets WHERE amount_per_way_cents = 100 AND status = 'active'");
    let picked: Vec<Vec<u8>> = serde_json::from_str(&picked).unwrap();
    let shown: Vec<String> = picked[0].iter().map(|n| format!("{n:02}")).collect();
    assert!(
        screen.contains(&format!("NUMBERS {}", shown.join(" "))),
        "{shown:?}:\n{screen}"
    );
    t.keys("q");
}

/// Issue 33: a sale refused because the system is suspended is said at once, with the
/// server's reason, and is not sent again nor taken for a sale whose outcome is unknown.
#[test]
fn a_sale_while_keno_is_suspended_is_refused_with_the_reason() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let mut w = world(&db, MANUAL_CLOCK);
    assert!(w.server.terminate());
    let backup = db.backup();
    let mut s = Server::start(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let sell = |s: &Server| {
        terminal(
            &s.base,
            &w.writer,
            state.path(),
            &["sell", "--spots", "6,45", "--amount", "1.00"],
        )
    };
    assert!(sell(&s).status.success());
    assert!(s.terminate());
    // Put back to the copy taken before that sale: the server starts suspended.
    db.restore(&backup);
    let s = Server::start(&db, MANUAL_CLOCK);
    let out = sell(&s);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("REFUSED (suspended): Keno is suspended since"),
        "{}",
        stderr(&out)
    );
}

use keno_testkit::scans as marking;

/// Diagram A marked with crosses on `numbers`, `games` and `$dollars` (and `more`), turned and
/// blurred a little as a scanner gives it, saved at `path`.
fn scanned_form(
    path: &std::path::Path,
    numbers: &[u8],
    games: u32,
    dollars: u64,
    more: &[(keno_forms::layout::Meaning, marking::Mark)],
) {
    use keno_forms::layout::Meaning;
    let marks: Vec<(Meaning, marking::Mark)> = numbers
        .iter()
        .map(|&n| (Meaning::Number(n), marking::Mark::Cross))
        .chain([
            (Meaning::Games(games), marking::Mark::Cross),
            (Meaning::Price(dollars * 100), marking::Mark::Cross),
        ])
        .chain(more.iter().copied())
        .collect();
    let spoiled = marking::Spoil {
        degrees: -2.0,
        blur: 0.7,
        noise: 3.0,
        ..marking::Spoil::none()
    };
    marking::marked(
        &keno_forms::diagram_a(),
        200,
        &marks,
        spoiled,
        u64::from(numbers[0]),
    )
    .save(path)
    .unwrap();
}

fn sha256_of(path: &std::path::Path) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Issue 36: at an 80x24 counter, `scan FILE` shows the form's sale as typed entry's
/// confirmation does and Enter sells it, keeping the image's SHA-256 (rule 5.4); a form the
/// scanner drops in the watched folder is read by itself and kept in its `read/`; a form that
/// cannot be sold as read says which boxes, and sells nothing.
#[test]
fn the_counter_sells_a_scanned_form_and_reads_the_scanners_folder() {
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let w = world(&db, MANUAL_CLOCK);
    let state = tempfile::tempdir().unwrap();
    let forms = tempfile::tempdir().unwrap();
    let inbox = forms.path().join("inbox");
    std::fs::create_dir(&inbox).unwrap();
    let args = format!(
        "--server {} --token {} --state-dir {} --scan-dir {}",
        w.server.base,
        w.writer,
        state.path().display(),
        inbox.display()
    );
    let Some(t) = in_tmux_sized("scan", &args, (80, 24)) else {
        return;
    };
    t.wait_for("OPEN FOR SALE");
    let first = forms.path().join("first.png");
    scanned_form(&first, &[6, 45, 36, 80], 5, 3, &[]);
    t.keys(&format!("scan {}", first.display()));
    let screen = t.wait_for("ENTER to sell");
    for line in [
        "NUMBERS   06 36 45 80",
        "GAMES     5",
        "AMOUNT    $3.00 a way",
        "TOTAL     $15.00",
        &format!(
            "FORM      scanned entry form, SHA-256 {}...",
            &sha256_of(&first)[..16]
        ),
    ] {
        assert!(screen.contains(line), "{line}:\n{screen}");
    }
    // The status line whole at 80 columns, its keys included (it was cut at "ESC to dr").
    assert!(
        screen
            .lines()
            .any(|l| l.trim_end() == "TOTAL $15.00 FOR 5 GAMES: ENTER to sell, ESC to drop"),
        "{screen}"
    );
    keep_screen("counter-scan.txt", &screen);
    t.key("Enter");
    t.wait_for("SOLD $15.00");
    assert_eq!(
        db.query_text("SELECT entry_form_sha256 AS s FROM tickets"),
        sha256_of(&first)
    );

    // The scanner drops a form in the folder: read by itself, sold on Enter, kept in read/.
    let second = forms.path().join("second.jpg");
    scanned_form(&second, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 1, 2, &[]);
    let digest = sha256_of(&second);
    std::fs::copy(&second, inbox.join("second.jpg")).unwrap();
    let screen = t.wait_for(&format!("SHA-256 {}...", &digest[..16]));
    assert!(
        screen.contains("NUMBERS   01 02 03 04 05 06 07 08 09 10"),
        "{screen}"
    );
    t.key("Enter");
    t.wait_for("SOLD $2.00");
    assert!(inbox.join("read").join("second.jpg").is_file());
    assert!(!inbox.join("second.jpg").exists());
    assert_eq!(
        db.query_i64(&format!(
            "SELECT COUNT(*) AS n FROM tickets WHERE entry_form_sha256 = '{digest}'"
        )),
        1
    );

    // Two game counts marked: said box by box, nothing sold.
    let third = forms.path().join("third.png");
    let more = [(keno_forms::layout::Meaning::Games(10), marking::Mark::Cross)];
    scanned_form(&third, &[11, 12], 2, 1, &more);
    std::fs::copy(&third, inbox.join("third.png")).unwrap();
    let screen = t.wait_for("FORM NOT READ: third.png");
    assert!(
        screen.contains("NUMBER OF GAMES 2, NUMBER OF GAMES 10")
            && screen.contains("ask the player to mark the form again, or key the ticket"),
        "{screen}"
    );
    assert!(screen.lines().all(|l| l.chars().count() <= 80), "{screen}");
    keep_screen("counter-scan-refused.txt", &screen);
    assert_eq!(db.query_i64("SELECT COUNT(*) AS n FROM tickets"), 2);
}

/// The screen as the writer saw it, into docs/ when `KENO_SCREENSHOTS` names it.
fn keep_screen(name: &str, screen: &str) {
    if let Some(docs) = std::env::var_os("KENO_SCREENSHOTS") {
        std::fs::write(std::path::Path::new(&docs).join(name), screen).unwrap();
    }
}
