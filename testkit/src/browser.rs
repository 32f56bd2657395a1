//! A headless Chromium driven over the W3C WebDriver protocol by Debian's chromedriver.
//!
//! The protocol is plain JSON over HTTP and the tests need six of its commands, so they speak
//! it through the same blocking ureq client as every other test, with no async runtime or
//! WebDriver crate to build.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
/// The key W3C WebDriver gives an element reference under.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
    /// Held while the browser lives: see [`Browser::start`].
    _turn: Option<MutexGuard<'static, ()>>,
}

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

impl Browser {
    /// `None` where Chromium is not installed, except under `CI=true`, where `.ci/run`
    /// installs it and its absence is a failure.
    pub fn start() -> Option<Browser> {
        if !std::path::Path::new(CHROMEDRIVER).exists() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but {CHROMEDRIVER} is missing: .ci/run installs chromium-driver"
            );
            eprintln!("skipped: no {CHROMEDRIVER} (apt-get install chromium chromium-driver)");
            return None;
        }
        // One browser at a time in a test binary: several Chromiums at once on a small machine
        // are slow to start, and each takes a port picked free a moment before.
        let turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // A port picked free may be taken by another test's server before chromedriver binds
        // it: then the session cannot be made, and a new port is tried.
        for _ in 0..3 {
            let mut browser = Browser::launch();
            if let Some(session) = browser.new_session() {
                browser.session = session;
                browser._turn = Some(turn);
                return Some(browser);
            }
        }
        panic!("chromedriver would not make a session on three ports");
    }

    /// chromedriver on a free port, listening.
    fn launch() -> Browser {
        let port = crate::free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver listens"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Browser {
            driver,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            agent,
            _turn: None,
        }
    }

    /// A headless Chromium session: its id, or `None` where the driver did not answer.
    fn new_session(&self) -> Option<String> {
        let body = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--window-size=1600,900", "--hide-scrollbars"]
            }
        }}});
        let mut response = self
            .agent
            .post(format!("{}/session", self.base))
            .send_json(body)
            .ok()?;
        if response.status().as_u16() != 200 {
            return None;
        }
        let reply: Value = response.body_mut().read_json().ok()?;
        reply["value"]["sessionId"].as_str().map(str::to_string)
    }

    fn command(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}{path}", self.base);
        let response = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self.agent.post(&url).send_json(body),
        };
        let mut response = response.expect("chromedriver answers");
        let status = response.status().as_u16();
        let reply: Value = response.body_mut().read_json().expect("WebDriver JSON");
        assert_eq!(status, 200, "WebDriver {method} {path}: {reply}");
        reply["value"].clone()
    }

    fn in_session(&self, method: &str, path: &str, body: Value) -> Value {
        self.command(method, &format!("/session/{}{path}", self.session), body)
    }

    pub fn goto(&self, url: &str) {
        self.in_session("POST", "/url", json!({ "url": url }));
    }

    /// Runs `script` (a function body; `return` gives the value) in the page.
    pub fn run(&self, script: &str) -> Value {
        self.in_session(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": [] }),
        )
    }

    /// Types `text` into the element `css` selects, as a keyboard would.
    pub fn type_into(&self, css: &str, text: &str) {
        let element = self.element(css);
        self.in_session("POST", &format!("/element/{element}/clear"), json!({}));
        self.in_session(
            "POST",
            &format!("/element/{element}/value"),
            json!({ "text": text }),
        );
    }

    pub fn click(&self, css: &str) {
        let element = self.element(css);
        self.in_session("POST", &format!("/element/{element}/click"), json!({}));
    }

    fn element(&self, css: &str) -> String {
        let found = self.in_session(
            "POST",
            "/element",
            json!({ "using": "css selector", "value": css }),
        );
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string()
    }

    /// Makes the window `width` x `height` pixels (a taller page for a picture of it).
    pub fn resize(&self, width: u32, height: u32) {
        self.in_session(
            "POST",
            "/window/rect",
            json!({ "width": width, "height": height }),
        );
    }

    /// The page as a PNG.
    pub fn screenshot(&self) -> Vec<u8> {
        let b64 = self.in_session("GET", "/screenshot", Value::Null);
        base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().unwrap())
            .unwrap()
    }

    /// Polls `script` until `done` accepts its value; returns that value.
    pub fn wait_for(&self, what: &str, script: &str, done: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            let v = self.run(script);
            if done(&v) {
                return v;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}; last: {v}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self
                .agent
                .delete(format!("{}/session/{}", self.base, self.session))
                .call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Saves a screenshot where `KENO_SCREENSHOTS` says (the docs' pictures are made so), after
/// checking it is a real PNG of a full screen.
pub fn keep_screenshot(png: &[u8], name: &str) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(width >= 800 && height >= 500, "{width}x{height}");
    if let Ok(dir) = std::env::var("KENO_SCREENSHOTS") {
        std::fs::write(std::path::Path::new(&dir).join(name), png).unwrap();
    }
}
