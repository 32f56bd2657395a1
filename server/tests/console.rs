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

    /// Shows page `route` (e.g. `claims` or `history?game=3`) and waits for its views.
    fn open(&self, route: &str) -> Value {
        let id = route.split('?').next().unwrap().to_string();
        self.browser
            .run(&format!("location.hash = '#/{route}'; return null;"));
        self.browser.wait_for(&format!("page {route}"), STATE, |s| {
            s["page"] == id.as_str()
                && s["views"]
                    .as_object()
                    .unwrap()
                    .values()
                    .all(|v| v["loaded"] == true)
        })
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
        self.browser.run(&format!(
            "document.querySelector('#{form} .result').textContent = ''; document.getElementById('outcome').dataset.form = ''; return null;"
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
    let server = Server::start(&db, MANUAL_CLOCK);
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
    keep_screenshot(&browser.screenshot(), "console-game.png");

    // Close the game: the page follows its draw by the event stream.
    let answer = console.submit("close-game", &[]);
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

    // The ticket's story from the audit trail; a void from the same page.
    console.open(&format!("ticket?serial={serial}"));
    console.shows("ticket", "ticket_sold");
    let answer = console.submit("void-ticket", &[("reason", "sold to an excluded person")]);
    assert_eq!(answer, "Done.");
    console.shows("ticket", "ticket_voided");

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
    console.shows("staff", "disabled");
    let answer = console.submit(
        "add-terminal",
        &[
            ("site", "735624"),
            ("terminal", "07"),
            ("reason", "a new counter"),
        ],
    );
    assert!(answer.contains("Credential for 735624/07: kt_"), "{answer}");
    console.shows("terminals", "735624");
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
    assert_eq!(console.submit(&format!("retire-set-{id}"), &[]), "Done.");
    console.shows("set-bets", "retired");

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
    let answer = console.submit(
        "file-claim",
        &[
            ("reason", "lost"),
            ("claimant_name", "Mary Citizen"),
            ("postal_address", "1 Example St"),
            ("phone", "02 6200 0000"),
            ("purchase_place", "735624"),
            ("purchase_date", "2026-11-25"),
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
fn chrono_free_local_in_an_hour(console: &Console) -> String {
    console
        .browser
        .run("const d = new Date(Date.now() + 3600e3 - new Date().getTimezoneOffset() * 60e3); return d.toISOString().slice(0, 16);")
        .as_str()
        .unwrap()
        .to_string()
}
