//! The back-office console (issue 18) in headless Chromium against a real server: each role
//! signs on with its staff credentials, sees only its pages, and every action goes through the
//! API and shows the server's answer. The pages do not depend on the database (the API they
//! call is tested on both backends), so these run on SQLite.

use keno_testkit::browser::{keep_screenshot, Browser};
use keno_testkit::{sale, Backend, Server, Staff, TestDb, BALL_DEVICE, MANUAL_CLOCK};
use serde_json::{json, Value};

/// What the console shows now: who is signed on, its pages, the page shown, every view's
/// text, and every action's answer.
const STATE: &str = r#"
    const q = (css) => document.querySelector(css);
    const text = (css) => (q(css) ? q(css).textContent : null);
    return {
        signOn: !q('#sign-on').hidden,
        signOnError: text('#sign-on-error'),
        who: text('#who'),
        link: text('#link'),
        nav: [...document.querySelectorAll('#nav a')].map((a) => a.dataset.page),
        page: q('#main') ? q('#main').dataset.page : null,
        views: Object.fromEntries([...document.querySelectorAll('section.view')]
            .map((v) => [v.id, { loaded: !!v.dataset.loaded, text: v.textContent }])),
        results: Object.fromEntries([...document.querySelectorAll('form.act')]
            .filter((f) => f.id).map((f) => [f.id, f.querySelector('.result').textContent])),
        outcome: q('#outcome') ? { form: q('#outcome').dataset.form, text: q('#outcome').textContent } : null,
    };
"#;

struct Console<'a> {
    browser: &'a Browser,
    base: String,
}

impl Console<'_> {
    fn sign_on(&self, person: &Staff) -> Value {
        self.browser.goto(&format!("{}/console", self.base));
        self.browser
            .wait_for("the sign-on form", STATE, |s| s["signOn"] == true);
        self.browser.type_into("#staff-id", &person.staff_id);
        self.browser.type_into("#password", &person.secret);
        self.browser.type_into("#totp", &person.code());
        self.browser.click("#sign-on-go");
        self.browser.wait_for("signed on", STATE, |s| {
            s["who"]
                .as_str()
                .is_some_and(|w| w.contains(&person.staff_id))
        })
    }

    /// Shows page `route` (e.g. `claims` or `history?game=3`) and waits for its views; every
    /// field on it has its label and every button its words (for a screen reader).
    fn open(&self, route: &str) -> Value {
        let id = route.split('?').next().unwrap().to_string();
        self.browser
            .run(&format!("location.hash = '#/{route}'; return null;"));
        let s = self.browser.wait_for(&format!("page {route}"), STATE, |s| {
            s["page"] == id.as_str()
                && s["views"]
                    .as_object()
                    .unwrap()
                    .values()
                    .all(|v| v["loaded"] == true)
        });
        let unlabelled = self.browser.run(
            "return [...document.querySelectorAll('#main input, #main select, #main textarea')]
                .filter((e) => e.labels.length === 0).map((e) => e.name)
                .concat([...document.querySelectorAll('#main button')]
                    .filter((b) => !b.textContent.trim()).map(() => 'a button'));",
        );
        assert_eq!(unlabelled, json!([]), "page {route}: unlabelled controls");
        s
    }

    /// What the last act asked before it was done (`window.confirm`'s sentence).
    fn asked(&self) -> String {
        let asked = self
            .browser
            .run("return (window.confirmed || []).slice(-1)[0] || null;");
        asked.as_str().unwrap_or("(nothing was asked)").to_string()
    }

    /// Waits until view `view` says `needle`.
    fn shows(&self, view: &str, needle: &str) -> Value {
        self.browser
            .wait_for(&format!("{view} showing {needle:?}"), STATE, |s| {
                s["views"][view]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains(needle))
            })
    }

    /// Fills form `form` (typing into text fields, setting others as a picker would) and sends
    /// it; the answer it shows.
    fn submit(&self, form: &str, fields: &[(&str, &str)]) -> String {
        // As a person would: once the form is on the page, in hand (focused), so live reloads
        // leave it alone.
        self.browser.wait_for(
            &format!("form {form}"),
            &format!("return document.getElementById('{form}') !== null;"),
            |there| there == true,
        );
        self.browser.run(&format!(
            "document.querySelector('#{form} input, #{form} textarea, #{form} select, #{form} button').focus(); return null;"
        ));
        for (name, value) in fields {
            let css = format!("#{form} [name={name}]");
            let kind = self.browser.run(&format!(
                "const e = document.querySelector('{css}'); return e ? (e.type || e.tagName) : null;"
            ));
            match kind.as_str() {
                Some("text") | Some("number") | Some("password") | Some("textarea") => {
                    self.browser.type_into(&css, value)
                }
                Some("checkbox") => {
                    self.browser.click(&css);
                }
                Some(_) => {
                    self.browser.run(&format!(
                        "const e = document.querySelector('{css}'); e.value = {}; return null;",
                        json!(value)
                    ));
                }
                None => panic!(
                    "form {form} has no field {name}: {}",
                    self.browser.run("return [...document.querySelectorAll('form')].map((f) => f.id + ':' + [...f.elements].map((e) => e.name).join(','));")
                ),
            }
        }
        // Every act that changes money or people asks first (issue 34, 6): agreed to here and
        // kept in `window.confirmed`, unless the test has put its own answer in place.
        self.browser.run(&format!(
            "if (!window.confirmed) {{ window.confirmed = []; window.confirm = (m) => {{ window.confirmed.push(m); return true; }}; }}
             document.querySelector('#{form} .result').textContent = ''; document.getElementById('outcome').dataset.form = ''; return null;"
        ));
        self.browser.click(&format!("#{form} button[type=submit]"));
        // The page's outcome line keeps the answer when the form goes with its view's reload.
        let s = self
            .browser
            .wait_for(&format!("the answer to {form}"), STATE, |s| {
                s["outcome"]["form"] == form
            });
        let text = s["outcome"]["text"].as_str().unwrap();
        text.split_once(": ")
            .map_or(text, |(_, answer)| answer)
            .to_string()
    }
}

/// A picture of the page from its top, in a window tall enough for the page's main views.
fn picture(browser: &Browser, name: &str) {
    browser.resize(1600, 1500);
    browser.run("window.scrollTo(0, 0); document.activeElement.blur(); return null;");
    std::thread::sleep(std::time::Duration::from_millis(300));
    keep_screenshot(&browser.screenshot(), name);
    browser.resize(1600, 900);
}

const SUPERVISOR_PAGES: &[&str] = &[
    "game",
    "draws",
    "invalidate",
    "devices",
    "waiting",
    "claims",
    "approvals",
    "set-bets",
    "staff",
    "shifts",
    "history",
    "ticket",
    "audit",
    "monitoring",
];

fn writer_sells(server: &Server, writer: &str, numbers: &[u8], id: &str) -> String {
    server.sell(
        writer,
        sale(
            id,
            json!({"type": "standard", "spots": numbers}),
            "standard",
            200,
            1,
        ),
    )["serial"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_supervisor_runs_the_room_from_the_console() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let supervisor = db.staff("supervisor", "SAM");
    // Keno all day from an hour ago, so the early closure scheduled an hour from now falls
    // before today's end whatever the time of day (at 23:30 with the day ending at midnight
    // it would not).
    let start = keno_testkit::keno_day_from_an_hour_ago();
    let args = [
        "--game-interval",
        "3600",
        "--reveal-interval",
        "0",
        "--keno-day-start",
        &start,
        "--keno-day-end",
        &start,
    ];
    let server = Server::start(&db, &args);
    let console = Console {
        browser: &browser,
        base: server.base.clone(),
    };
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let serial = writer_sells(&server, &writer, &[7, 11, 23, 42], "c-1");

    let s = console.sign_on(&supervisor);
    assert_eq!(s["nav"], json!(SUPERVISOR_PAGES), "{s}");
    let s = console.open("game");
    let game = s["views"]["game"]["text"].as_str().unwrap().to_string();
    assert!(game.contains("open"), "{game}");
    console.shows("liability", "Tickets1");
    let stake = browser.run(
        "return [7, 11, 8].map((n) => Number(document.querySelector(`#heat [data-n='${n}']`).dataset.stake));",
    );
    assert_eq!(
        stake,
        json!([200, 200, 0]),
        "the heat map holds the stake per number"
    );
    // A sale at the counter reaches the open page by itself.
    writer_sells(&server, &writer, &[7, 8], "c-2");
    console.shows("liability", "Tickets2");
    // An evening's mix of tickets, for the picture.
    for i in 0..40u32 {
        let first = (i * 7) % 70 + 1;
        let spots: Vec<u8> = (0..(i % 8 + 1))
            .map(|k| (first + k * (i % 3 + 1)) as u8)
            .filter(|&n| n <= 80)
            .collect();
        writer_sells(&server, &writer, &spots, &format!("mix-{i}"));
    }
    console.shows("liability", "Tickets42");
    picture(&browser, "console-game.png");

    // Close the game: it asks why and what it will do first; declined, nothing is done.
    browser.run(
        "window.confirmed = []; window.confirm = (m) => { window.confirmed.push(m); return false; }; return null;",
    );
    let reason = ("reason", "fire drill: the room is being cleared");
    let answer = console.submit("close-game", &[reason]);
    assert_eq!(answer, "Not done.");
    let asked = browser.run("return window.confirmed;");
    assert!(
        asked[0].as_str().is_some_and(
            |m| m.contains("No more tickets are sold for it") && m.contains("fire drill")
        ),
        "{asked}"
    );
    assert_eq!(server.get("/api/v1/games/current").1["number"], 1);
    // Agreed: the page follows its draw by the event stream.
    browser.run("window.confirm = (m) => { window.confirmed.push(m); return true; }; return null;");
    let answer = console.submit("close-game", &[reason]);
    assert!(
        answer.contains("is closed") || answer.contains("is drawing"),
        "{answer}"
    );
    let drawn = server.wait_settled(1);
    let order: Vec<String> = drawn["drawn"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.to_string())
        .collect();
    console.open("history?game=1");
    console.shows(
        "game-detail",
        &format!("In drawn order: {}", order.join(" ")),
    );
    console.shows("game-detail", &serial);
    console.shows("game-detail", "early (due");
    picture(&browser, "console-history.png");

    // The ticket's story from the audit trail; a void from the same page.
    console.open(&format!("ticket?serial={serial}"));
    // Its story in sentences, with names: no payloads, epoch times or staff IDs.
    let s = console.shows("ticket", "Sold at 735624/03 by");
    let text = s["views"]["ticket"]["text"].as_str().unwrap();
    assert!(
        !text.contains("request_id") && !text.contains('{'),
        "{text}"
    );
    let answer = console.submit("void-ticket", &[("reason", "sold to an excluded person")]);
    assert_eq!(answer, "Done.");
    console.shows(
        "ticket",
        "Its wagers voided (rule 17.2): sold to an excluded person",
    );
    picture(&browser, "console-ticket.png");

    invalidates_a_game_after_seeing_its_refunds(&console, &server, &writer);
    manages_staff_and_terminals(&console);
    keeps_the_catalogue_and_the_claims(&console, &server);
}

fn invalidates_a_game_after_seeing_its_refunds(console: &Console, server: &Server, writer: &str) {
    let open = server.get("/api/v1/games/current").1["number"]
        .as_i64()
        .unwrap();
    writer_sells(server, writer, &[1, 2, 3], "c-3");
    console.open("invalidate");
    let answer = console.submit(
        "preview-invalidation",
        &[("game", &open.to_string()), ("forfeit", "")],
    );
    assert_eq!(answer, "Done.");
    let preview = console.browser.run(
        "return [...document.querySelectorAll('#invalidation-preview dd')].map((d) => d.textContent);",
    );
    assert_eq!(
        preview,
        json!([open.to_string(), "1", "$2.00"]),
        "the refunds before"
    );
    assert_eq!(
        server.get(&format!("/api/v1/games/{open}")).1["state"],
        "open",
        "a preview changes nothing"
    );
    let answer = console.submit(
        "confirm-invalidation",
        &[("reason", "a fire alarm cleared the room")],
    );
    assert_eq!(
        answer,
        format!("Game {open} invalidated: 1 tickets refunded $2.00.")
    );
    assert_eq!(
        server.get(&format!("/api/v1/games/{open}")).1["state"],
        "invalidated"
    );
}

fn manages_staff_and_terminals(console: &Console) {
    console.open("staff");
    let answer = console.submit(
        "add-staff",
        &[
            ("name", "WENDY"),
            ("role", "writer"),
            ("reason", "new writer for the evening"),
        ],
    );
    assert!(
        answer.contains("Shown once") && answer.contains("Secret:"),
        "{answer}"
    );
    let id = console.browser.run(
        "return document.querySelector('#add-staff #secret-shown div').textContent.replace('Staff ID: ', '');",
    );
    let id = id.as_str().unwrap().to_string();
    console.shows("staff", "WENDY");
    let answer = console.submit(&format!("disable-{id}"), &[("reason", "left the venue")]);
    assert_eq!(answer, "Done.");
    let asked = console.asked();
    assert!(
        asked.starts_with("Disable WENDY")
            && asked.contains("their sessions end now")
            && asked.contains("\"left the venue\""),
        "{asked}"
    );
    console.shows("staff", "disabled");
    let answer = console.submit(
        "add-terminal",
        &[
            ("site", "735624"),
            ("terminal", "07"),
            ("venue", "Civic Club"),
            ("reason", "a new counter"),
        ],
    );
    assert!(answer.contains("Credential for 735624/07: kt_"), "{answer}");
    assert!(
        console
            .asked()
            .starts_with("Register terminal 07 at 735624"),
        "{}",
        console.asked()
    );
    console.shows("terminals", "Civic Club");
}

fn keeps_the_catalogue_and_the_claims(console: &Console, server: &Server) {
    console.open("set-bets");
    let answer = console.submit(
        "new-set-bet",
        &[
            ("name", "Corners"),
            ("groups", "1 2 / 9 10 / 71 72 / 79 80"),
            ("combine", "2"),
            ("amount_per_way_cents", "1.00"),
        ],
    );
    assert_eq!(answer, "Done.");
    console.shows("set-bets", "Corners");
    let id = server.get("/api/v1/set-bets").1[0]["id"].as_i64().unwrap();
    assert_eq!(
        console.submit(
            &format!("retire-set-{id}"),
            &[("reason", "the corners promotion is over")]
        ),
        "Done."
    );
    assert_eq!(
        console.asked(),
        "Retire Corners: writers can no longer sell it; tickets already sold stand. Your reason: \"the corners promotion is over\"."
    );
    console.shows("set-bets", "the corners promotion is over");

    console.open("approvals");
    let answer = console.submit(
        "new-bonus",
        &[
            ("name", "Lucky 7"),
            ("catch", "7"),
            ("spots", "7"),
            ("prize_cents", "50.00"),
        ],
    );
    assert_eq!(answer, "Done.");
    console.shows("bonuses", "proposed");

    console.open("claims");
    reads_dates_day_first(console);
    let answer = console.submit(
        "file-claim",
        &[
            ("reason", "lost"),
            ("claimant_name", "Mary Citizen"),
            ("postal_address", "1 Example St"),
            ("phone", "02 6200 0000"),
            ("purchase_place", "735624"),
            ("purchase_date", "25/11/2026"),
        ],
    );
    assert!(
        answer.starts_with("Claim ") && answer.ends_with(" filed."),
        "{answer}"
    );
    console.shows("claims", "Mary Citizen");

    console.open("game");
    let at = (chrono_free_local_in_an_hour(console)).to_string();
    let answer = console.submit(
        "close-keno",
        &[
            ("closes_at", &at),
            ("inspector_notified", "Insp. Lee by phone"),
            ("reason", "storm warning"),
        ],
    );
    assert!(answer.contains("scheduled"), "{answer}");
    let id = answer
        .split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches(':')
        .to_string();
    console.shows("game", "Keno closes early today");
    let answer = console.submit(
        "withdraw-closure",
        &[("closure", &id), ("reason", "the storm passed")],
    );
    assert_eq!(answer, "Done.");
}

/// An hour from now as the browser's `datetime-local` field takes it (local time).
/// Dates are typed day first, as every page shows them, whatever the browser's locale (issue
/// 34, 9: a US browser's date picker asked mm/dd/yyyy); the day typed is said back in words,
/// and a month-first date is refused, not read as another day.
fn reads_dates_day_first(console: &Console) {
    let field = "#file-claim [name=purchase_date]";
    let browser = &console.browser;
    assert_eq!(
        browser.run(&format!(
            "return document.querySelector('{field}').placeholder;"
        )),
        "dd/mm/yyyy"
    );
    let reads = |typed: &str| {
        browser.type_into(field, typed);
        browser.run(&format!(
            "const e = document.querySelector('{field}'); return document.getElementById(e.id + '-reads').textContent;"
        ))
    };
    assert_eq!(reads("25/11/2026"), "Wednesday 25 November 2026");
    assert_eq!(reads("11/25/2026"), "as dd/mm/yyyy");
    let answer = console.submit(
        "file-claim",
        &[
            ("claimant_name", "Month First"),
            ("postal_address", "1 Example St"),
            ("phone", "02 6200 0000"),
            ("purchase_place", "735624"),
            ("purchase_date", "11/25/2026"),
        ],
    );
    assert!(
        answer.contains("give the date as dd/mm/yyyy, e.g. 27/11/2026 (invalid_date)"),
        "{answer}"
    );
}

fn chrono_free_local_in_an_hour(console: &Console) -> String {
    console
        .browser
        .run("const d = new Date(Date.now() + 3600e3); const two = (n) => String(n).padStart(2, '0'); return `${two(d.getDate())}/${two(d.getMonth() + 1)}/${d.getFullYear()} ${two(d.getHours())}:${two(d.getMinutes())}`;")
        .as_str()
        .unwrap()
        .to_string()
}

/// Games drawn ball by ball: the device's token and a supervisor's, over the API.
struct Drawing<'a> {
    server: &'a Server,
    device: String,
    supervisor: String,
}

impl Drawing<'_> {
    fn close(&self) -> i64 {
        let (status, game) =
            self.server
                .post(&self.supervisor, "/api/v1/games/current/close", Value::Null);
        assert_eq!(status, 200, "{game}");
        game["number"].as_i64().unwrap()
    }

    fn balls(&self, game: i64, numbers: std::ops::RangeInclusive<i64>) {
        for n in numbers {
            let path = format!("/api/v1/games/{game}/balls");
            let (status, b) = self
                .server
                .post(&self.device, &path, json!({ "number": n }));
            assert_eq!(status, 201, "{b}");
        }
    }

    /// The balls spill: the draw is void and the device held until it is returned.
    fn spill(&self, game: i64) {
        let (status, f) = self.server.post(
            &self.device,
            &format!("/api/v1/games/{game}/faults"),
            json!({"kind": "spill", "reason": "balls spilled from the bowl"}),
        );
        assert_eq!(status, 201, "{f}");
    }

    /// A supervisor asks for ball `position` to read `number`; the correction's id.
    fn correct(&self, game: i64, position: i64, number: i64) -> i64 {
        let (status, c) = self.server.post(
            &self.supervisor,
            &format!("/api/v1/games/{game}/corrections"),
            json!({"position": position, "number": number, "reason": "the ball reads otherwise"}),
        );
        assert_eq!(status, 201, "{c}");
        c["id"].as_i64().unwrap()
    }
}

const INSPECTOR_PAGES: &[&str] = &[
    "game",
    "draws",
    "devices",
    "waiting",
    "claims",
    "approvals",
    "set-bets",
    "shifts",
    "history",
    "ticket",
    "audit",
    "monitoring",
];

/// A device-drawn game with a fault (the device held until a supervisor and an inspector
/// return it) and a correction waiting for the inspector; a claim and a bonus prize to decide.
#[test]
fn an_inspector_decides_and_an_auditor_reads() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let supervisor = db.principal("supervisor", "SUPER", None);
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let device = db.principal("device", "BALLMACHINE-1", None);
    let inspector = db.staff("inspector", "IRIS");
    let auditor = db.staff("auditor", "AUDREY");
    let server = Server::start(&db, BALL_DEVICE);
    let console = Console {
        browser: &browser,
        base: server.base.clone(),
    };
    let device_id = server.get_as(&device, "/api/v1/principals/me").1["id"]
        .as_str()
        .unwrap()
        .to_string();
    let drawing = Drawing {
        server: &server,
        device,
        supervisor: supervisor.clone(),
    };
    let winner = writer_sells(&server, &writer, &[10], "w-1");
    let game = drawing.close();
    drawing.balls(game, 1..=3);
    drawing.spill(game);
    let (status, d) = server.post(
        &supervisor,
        &format!("/api/v1/devices/{device_id}/return"),
        json!({ "note": "bowl refitted and tested" }),
    );
    assert_eq!(status, 200, "{d}");

    let s = console.sign_on(&inspector);
    assert_eq!(s["nav"], json!(INSPECTOR_PAGES), "{s}");
    console.open("waiting");
    console.shows("waiting", "Device held");
    console.open("devices");
    let answer = console.submit(
        &format!("return-{device_id}"),
        &[("note", "seen drawing 80 balls cleanly")],
    );
    assert_eq!(answer, "Done.");
    console.shows("devices", "yes");

    drawing.balls(game, 10..=14);
    let correction = drawing.correct(game, 5, 15);
    console.open(&format!("draws?game={game}"));
    console.shows("draw-record", "pending");
    let answer = console.submit(&format!("approve-correction-{correction}"), &[]);
    assert_eq!(answer, "Done.");
    console.shows("draw-record", "applied");
    drawing.balls(game, 16..=30);
    server.wait_settled(game);
    console.open(&format!("history?game={game}"));
    console.shows("game-detail", "In drawn order: 10 11 12 13 15 16");
    console.open("monitoring");
    console.shows("monitoring", "a ball device");
    console.shows("monitoring", "too few games to judge (");
    console.shows("monitoring", "frequency");

    decides_a_claim_and_a_bonus(&console, &server, &supervisor, &winner);
    picture(&browser, "console-claims.png");

    // The auditor reads everything and changes nothing. The inspector signs off first: the
    // next person at the PC sees the sign-on form and nothing of the inspector's pages.
    browser.click("#sign-off");
    browser.wait_for("signed off", STATE, |s| s["signOn"] == true);
    let seen = browser.run(
        "const f = document.querySelector('#frame');
         return { display: getComputedStyle(f).display, text: document.body.innerText };",
    );
    assert_eq!(
        seen["display"], "none",
        "the inspector's page is still shown"
    );
    assert!(
        !seen["text"].as_str().unwrap().contains("In drawn order"),
        "{seen}"
    );
    let s = console.sign_on(&auditor);
    assert_eq!(s["nav"], json!(INSPECTOR_PAGES), "{s}");
    console.open("claims");
    let forms = browser.run("return document.querySelectorAll('#claims form').length;");
    assert_eq!(forms, json!(0), "an auditor is offered no decision");
    audits_the_day(&console, &server, game);
}

fn decides_a_claim_and_a_bonus(console: &Console, server: &Server, supervisor: &str, winner: &str) {
    let day = server.get("/api/v1/games/current").1["keno_day"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, claim) = server.post(
        supervisor,
        "/api/v1/claims",
        json!({
            "reason": "lost", "claimant_name": "Mary Citizen", "postal_address": "1 Example St",
            "phone": "02 6200 0000", "purchase_place": "735624", "purchase_date": day,
            "games": 1, "other_details": "1 spot, $2",
        }),
    );
    assert_eq!(status, 201, "{claim}");
    let id = claim["id"].as_i64().unwrap();
    console.open("claims");
    console.shows("claims", "submitted");
    // The serial lost, the inspector sees the tickets that match and how (issue 34, 8).
    console.shows("claims", &format!("{winner} owes $"));
    console.shows("claims", "bought at site 735624");
    picture(console.browser, "console-claim-matches.png");
    let answer = console.submit(
        &format!("approve-claim-{id}"),
        &[
            ("serial", winner),
            ("reason", "the sale's record matches her account"),
        ],
    );
    assert_eq!(answer, "Done.");
    let asked = console.asked();
    assert!(
        asked.starts_with(&format!(
            "Approve claim {id} from Mary Citizen for ticket {winner}, which is owed $"
        )),
        "{asked}"
    );
    console.shows("claims", "approved");

    let (status, bonus) = server.post(
        supervisor,
        "/api/v1/bonus-prizes",
        json!({"name": "Lucky 7", "catch": 7, "spots": 7, "prize_cents": 5000, "every_nth_game": 1}),
    );
    assert_eq!(status, 201, "{bonus}");
    let id = bonus["id"].as_i64().unwrap();
    console.open("approvals");
    let answer = console.submit(
        &format!("approve-bonus-{id}"),
        &[("reference", "ACT-GC-2026-117")],
    );
    assert_eq!(answer, "Done.");
    console.shows("bonuses", "ACT-GC-2026-117");
}

fn audits_the_day(console: &Console, server: &Server, game: i64) {
    let day = server.get(&format!("/api/v1/games/{game}")).1["keno_day"]
        .as_str()
        .unwrap()
        .to_string();
    console.open(&format!("audit?day={day}"));
    console.shows("exceptions", "correction");
    console.browser.click(".file button");
    let report = console.browser.wait_for(
        "the report's bytes",
        "const s = document.querySelector('.file [role=status]'); return s ? s.textContent : null;",
        |v| v.as_str().is_some_and(|t| t.contains("application/pdf")),
    );
    assert!(report.as_str().unwrap().contains("downloaded"), "{report}");
    console.browser.wait_for("the export form", STATE, |s| {
        s["results"].get("export").is_some()
    });
    let answer = console.submit("export", &[("kind", "tickets"), ("format", "csv")]);
    let bytes: u64 = answer
        .trim_start_matches("Downloaded ")
        .trim_end_matches(" bytes.")
        .parse()
        .unwrap_or_else(|_| panic!("{answer}"));
    assert!(bytes > 100, "the CSV has the day's tickets: {answer}");
    let answer = console.submit("verify", &[]);
    assert_eq!(answer, "Done.");
    let verdict = console
        .browser
        .run("return document.getElementById('verify-result').textContent;");
    assert!(
        verdict
            .as_str()
            .unwrap()
            .contains("the audit trail is intact"),
        "{verdict}"
    );
    picture(console.browser, "console-audit.png");
}

/// Only supervisors, inspectors and auditors use the console: a writer's token is turned away
/// with a reason, and a wrong password says why.
/// An administrator (issue 31) sees the staff only: adds and resets the oversight (supervisors,
/// inspectors, auditors), never a writer, and no terminals.
#[test]
fn an_administrator_manages_the_oversight_and_nothing_else() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let ada = db.staff("administrator", "ADA");
    db.staff("writer", "JULIE");
    db.staff("supervisor", "SAM");
    let server = Server::start(&db, keno_testkit::MANUAL_CLOCK);
    let console = Console {
        browser: &browser,
        base: server.base.clone(),
    };
    let s = console.sign_on(&ada);
    assert_eq!(s["nav"], json!(["staff"]), "{s}");
    let s = console.open("staff");
    assert!(s["views"].get("terminals").is_none(), "{s}");
    let roles = browser.run(
        "return [...document.querySelectorAll('#add-staff [name=role] option')].map((o) => o.value);",
    );
    assert_eq!(roles, json!(["supervisor", "inspector", "auditor"]));
    // A writer's row has no action for an administrator; a supervisor's has.
    let actions =
        browser.run("return [...document.querySelectorAll('#main form[id^=reset-]')].length;");
    assert_eq!(actions, json!(1), "only SAM's row can be reset");
    let answer = console.submit(
        "add-staff",
        &[
            ("name", "INA"),
            ("role", "inspector"),
            ("reason", "a new inspector for the venue"),
        ],
    );
    assert!(
        answer.contains("Shown once") && answer.contains("Authenticator:"),
        "{answer}"
    );
    console.shows("staff", "INA");
    picture(&browser, "console-administrator.png");
}

#[test]
fn others_are_turned_away_with_a_reason() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let supervisor = db.staff("supervisor", "SAM");
    let server = Server::start(&db, MANUAL_CLOCK);
    browser.goto(&format!("{}/console", server.base));
    browser.wait_for("the sign-on form", STATE, |s| s["signOn"] == true);
    browser.type_into("#staff-id", &supervisor.staff_id);
    browser.type_into("#password", "not the password at all");
    browser.type_into("#totp", &supervisor.code());
    browser.click("#sign-on-go");
    let s = browser.wait_for("the refusal", STATE, |s| {
        s["signOnError"].as_str().is_some_and(|e| !e.is_empty())
    });
    assert!(
        s["signOnError"]
            .as_str()
            .unwrap()
            .contains("sign_on_failed")
            || s["signOnError"].as_str().unwrap().contains("("),
        "{s}"
    );
    assert_eq!(s["nav"], json!([]));

    browser.click("#sign-on details summary");
    browser.type_into("#token", &writer);
    browser.click("#sign-on-go");
    let s = browser.wait_for("the writer turned away", STATE, |s| {
        s["signOnError"]
            .as_str()
            .is_some_and(|e| e.contains("writer"))
    });
    assert!(
        s["signOnError"]
            .as_str()
            .unwrap()
            .contains("supervisors, inspectors, auditors and administrators"),
        "{s}"
    );
    assert_eq!(s["signOn"], true);
}

/// The rest of the actions, by the role that takes them: an inspector rejects a correction and
/// a claim, approves one, records and withdraws Special 3's approval; a supervisor signs off a
/// short drawer, asks for a correction, enables, resets and rotates, withdraws a bonus prize and
/// pays a claim by cheque, with the PDFs fetched as a person would.
#[test]
fn every_other_action_by_its_role() {
    let Some(browser) = Browser::start() else {
        return;
    };
    let db = TestDb::new(Backend::Sqlite).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rules = keno_testkit::special3_rules(dir.path(), 15_000);
    let super_token = db.principal("supervisor", "SUPER", None);
    let writer = db.principal_without_shift("writer", "JULIE", Some(("735624", "03")));
    let device = db.principal("device", "BALLMACHINE-1", None);
    let supervisor = db.staff("supervisor", "SAM");
    let inspector = db.staff("inspector", "IRIS");
    db.terminal("735624", "03");
    let server = Server::start(&db, &[BALL_DEVICE, &["--rules", rules.as_str()]].concat());
    let console = Console {
        browser: &browser,
        base: server.base.clone(),
    };
    let shift = a_short_drawer(&server, &writer);
    let winner = writer_sells(&server, &writer, &[10], "w-1");
    let drawing = Drawing {
        server: &server,
        device,
        supervisor: super_token.clone(),
    };
    let game = drawing.close();
    drawing.balls(game, 10..=14);
    let correction = drawing.correct(game, 5, 15);

    console.sign_on(&inspector);
    console.open(&format!("draws?game={game}"));
    let answer = console.submit(
        &format!("reject-correction-{correction}"),
        &[("reason", "the camera shows 14")],
    );
    assert_eq!(answer, "Done.");
    console.shows("draw-record", "rejected");
    drawing.balls(game, 15..=29);
    server.wait_settled(game);
    an_inspector_records_special3_and_decides_claims(&console, &server, &super_token, &winner);

    browser.click("#sign-off");
    browser.wait_for("signed off", STATE, |s| s["signOn"] == true);
    console.sign_on(&supervisor);
    console.open("shifts");
    console.shows("shifts", "waiting for a supervisor's sign-off");
    let id = shift["id"].as_i64().unwrap();
    let answer = console.submit(
        &format!("sign-off-{id}"),
        &[("reason", "a $10 note found in the float bag")],
    );
    assert_eq!(answer, "Done.");
    // Signed off by name, not by staff ID.
    console.shows("shifts", "by SAM: a $10 note found");
    fetches_a_pdf(&console, "#shifts .file");
    a_supervisor_keeps_staff_bonuses_and_claims(&console, &server, &super_token);

    // A correction asked at the console, on the next game as it is drawn.
    let next = drawing.close();
    drawing.balls(next, 1..=3);
    console.open(&format!("draws?game={next}"));
    let answer = console.submit(
        "request-correction",
        &[
            ("position", "2"),
            ("number", "12"),
            ("reason", "ball 2 reads 12 on the ball"),
        ],
    );
    assert_eq!(answer, "Done.");
    console.shows("draw-record", "pending");
}

/// A writer's shift closed $10.00 short: it waits for a supervisor's sign-off. She opens her
/// next shift to sell on.
fn a_short_drawer(server: &Server, writer: &str) -> Value {
    let (status, open) = server.post(writer, "/api/v1/shifts", json!({"float_cents": 5000}));
    assert_eq!(status, 201, "{open}");
    let (status, shift) = server.post(
        writer,
        "/api/v1/shifts/current/close",
        json!({"counted_cents": 4000}),
    );
    assert_eq!(
        (status, shift["state"].as_str()),
        (200, Some("awaiting_sign_off")),
        "{shift}"
    );
    let (status, next) = server.post(writer, "/api/v1/shifts", json!({"float_cents": 0}));
    assert_eq!(status, 201, "{next}");
    shift
}

fn an_inspector_records_special3_and_decides_claims(
    console: &Console,
    server: &Server,
    supervisor: &str,
    winner: &str,
) {
    console.open("approvals");
    console.shows("special3", "not approved");
    let answer = console.submit(
        "record-special3",
        &[
            ("reference", "CSA approval 2026/17"),
            ("approved_by", "J. Citizen, Casino Surveillance Authority"),
        ],
    );
    assert_eq!(answer, "Done.");
    console.shows("special3", "Special 3 is on sale.");
    let id = server.get_as(supervisor, "/api/v1/special3/approvals").1["approvals"][0]["id"]
        .as_i64()
        .unwrap();
    let answer = console.submit(
        &format!("withdraw-special3-{id}"),
        &[("reason", "the promotion ended")],
    );
    assert_eq!(answer, "Done.");
    console.shows("special3", "the promotion ended");

    let day = server.get("/api/v1/games/current").1["keno_day"]
        .as_str()
        .unwrap()
        .to_string();
    let claim = |serial: Option<&str>| {
        let mut form = json!({
            "reason": "lost", "claimant_name": "Mary Citizen", "postal_address": "1 Example St",
            "phone": "02 6200 0000", "purchase_place": "735624", "purchase_date": day,
            "games": 1, "other_details": "1 spot, $2",
        });
        if let Some(s) = serial {
            form["serial"] = json!(s);
        }
        let (status, c) = server.post(supervisor, "/api/v1/claims", form);
        assert_eq!(status, 201, "{c}");
        c["id"].as_i64().unwrap()
    };
    let (good, bad) = (claim(Some(winner)), claim(None));
    console.open("claims");
    let answer = console.submit(
        &format!("reject-claim-{bad}"),
        &[("reason", "no ticket matches her account")],
    );
    assert_eq!(answer, "Done.");
    console.shows("claims", "rejected");
    let answer = console.submit(
        &format!("approve-claim-{good}"),
        &[("serial", winner), ("reason", "the sale's record matches")],
    );
    assert_eq!(answer, "Done.");
}

fn a_supervisor_keeps_staff_bonuses_and_claims(
    console: &Console,
    server: &Server,
    supervisor: &str,
) {
    console.open("staff");
    console.submit(
        "add-staff",
        &[
            ("name", "WENDY"),
            ("role", "writer"),
            ("reason", "evening writer"),
        ],
    );
    let id = server
        .get_as(supervisor, "/api/v1/staff")
        .1
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "WENDY")
        .unwrap()["staff_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        console.submit(&format!("disable-{id}"), &[("reason", "on leave")]),
        "Done."
    );
    assert_eq!(
        console.submit(&format!("enable-{id}"), &[("reason", "back from leave")]),
        "Done."
    );
    // The new secret stays at the top of the page after its row is redrawn.
    let answer = console.submit(&format!("reset-{id}"), &[("reason", "forgot her PIN")]);
    assert!(
        answer.contains("Shown once") && answer.contains("Secret:"),
        "{answer}"
    );
    let answer = console.submit(
        "rotate-735624-03",
        &[("reason", "the old one was written down")],
    );
    assert!(answer.contains("Credential for 735624/03: kt_"), "{answer}");

    let (status, bonus) = server.post(
        supervisor,
        "/api/v1/bonus-prizes",
        json!({"name": "Lucky 7", "catch": 7, "spots": 7, "prize_cents": 5000, "every_nth_game": 1}),
    );
    assert_eq!(status, 201, "{bonus}");
    console.open("approvals");
    let answer = console.submit(
        &format!("withdraw-bonus-{}", bonus["id"]),
        &[("reason", "the promotion ended early")],
    );
    assert_eq!(answer, "Done.");
    console.shows("bonuses", "withdrawn: the promotion ended early");

    console.open("claims");
    console.shows("claims", "approved");
    let approved = server.get_as(supervisor, "/api/v1/claims?state=approved").1[0]["id"]
        .as_i64()
        .unwrap();
    let answer = console.submit(
        &format!("pay-claim-{approved}"),
        &[("cheque_reference", "000417")],
    );
    assert_eq!(answer, "Done.");
    console.shows("claims", "cheque 000417");
    fetches_a_pdf(console, &format!("#claims tr[data-key='{approved}'] .file"));
}

/// Clicks the download button in `within` and waits for it to say a PDF came.
fn fetches_a_pdf(console: &Console, within: &str) {
    console.browser.click(&format!("{within} button"));
    let said = console.browser.wait_for(
        "a PDF",
        &format!("const s = document.querySelector(\"{within} [role=status]\"); return s ? s.textContent : null;"),
        |v| v.as_str().is_some_and(|t| t.contains("application/pdf") || t.contains('(')),
    );
    assert!(said.as_str().unwrap().contains("application/pdf"), "{said}");
}
