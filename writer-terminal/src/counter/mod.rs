//! The full-screen counter: the writer's screen (rules 5, 6, 8, 11).
//!
//! The header is kept live from the server's event stream: the game open for sale and the
//! seconds to its close, the jackpot pools, the numbers as they are drawn, and the notice of an
//! early closure of Keno (rule 16.2: "KENO CLOSES AT hh:mm"), who is signed on, and what the
//! shift's drawer should hold. One input line takes everything (see [`command`]): a sale is
//! priced by the server first and sold on Enter.
//!
//! With no writer signed on, a sign-on screen takes the entry line's place (`sign_on`); a
//! supervisor's approval and a hand-pay are asked in a form the same way (`approval`, `form`).

mod approval;
mod claim;
pub mod command;
mod form;
mod scan;
mod shift;
mod sign_on;
mod to_sell;

use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use keno_api::closures::ClosureInForce;
use keno_api::events::Event as Published;
use keno_api::games::{Game, Jackpot};
use keno_api::set_bets::SetBet;
use keno_api::staff::{HandPay, OverrideAction, PayRequest};
use keno_api::tickets::{Cancellation, Payment, Quote, SoldTicket, Ticket, TicketDetail};
use keno_api::vouchers::Voucher;
use keno_api::{EventKind, Refusal};
use keno_core::Dollars;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line as TextLine, Span as TextSpan};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::{DefaultTerminal, Frame};
use tui_input::backend::crossterm::EventHandler;
use tui_input::Input;

use crate::client::{CallError, Client, Sale};
use crate::order::{new_request_id, Order};
use crate::receipt::{self, Receipt};
use crate::session::{Saved, SessionFile};
use command::Command;
use form::{Form, Typed};

/// What the terminal needs from `main`: where to send things.
pub struct Settings<'a> {
    pub server: &'a str,
    /// This registered terminal's credential: writers sign on with it.
    pub credential: Option<&'a str>,
    /// Deprecated: a legacy writer token, signed on as long as the counter runs.
    pub token: Option<&'a str>,
    /// Where the session is kept, shared with the command-line commands.
    pub sessions: SessionFile,
    pub casino: &'a str,
    pub print: &'a [crate::print::Target],
    /// The folder a document scanner drops entry forms into (`--scan-dir`).
    pub scan_dir: Option<&'a std::path::Path>,
    pub save_last: &'a dyn Fn(&SoldTicket),
    pub last: &'a dyn Fn() -> Option<SoldTicket>,
}

#[derive(Debug, Clone)]
enum Action {
    Sell(Order, String),
    Pay(String),
    Cancel(String),
    Check(String),
    /// Closes the writer's shift with this much counted in the drawer.
    CloseShift(i64),
}

/// An action with what the server asked for it: a supervisor's grant, a hand-pay.
#[derive(Debug, Clone)]
struct Attempt {
    action: Action,
    grant: Option<String>,
    hand_pay: Option<HandPay>,
}

impl From<Action> for Attempt {
    fn from(action: Action) -> Attempt {
        Attempt {
            action,
            grant: None,
            hand_pay: None,
        }
    }
}

/// A form open in place of the entry line, and what it is for.
struct Prompt {
    form: Form,
    purpose: Purpose,
}

enum Purpose {
    SignOn,
    Approval {
        attempt: Attempt,
        action: OverrideAction,
        serial: String,
    },
    HandPay(Attempt),
    /// The Unclaimed Prize Claim Form's fields.
    Claim,
}

/// The writer signed on: the session (none with a legacy token) and when it was last used.
struct Standing {
    saved: Option<Saved>,
    last_used: Instant,
}

struct App<'a> {
    settings: Settings<'a>,
    /// The writer's session as the bearer token (none on the sign-on screen).
    client: Client,
    /// The header's words for who is signed on.
    writer: String,
    session: Option<Standing>,
    /// The sign-on, a supervisor's approval or a hand-pay, typed in place of the entry line.
    prompt: Option<Prompt>,
    /// What the shift's drawer should hold.
    shift: String,
    game: Option<(i64, Option<DateTime<Utc>>)>,
    /// The early closure in force today (rule 16.2): its hh:mm on the venue's clock, and when.
    closure: Option<(String, Option<DateTime<Utc>>)>,
    jackpots: Vec<(u64, u64)>,
    drawing: Option<(i64, Vec<u64>)>,
    /// When the server last answered (a read or an event); `offline` since its last failure.
    heard_at: Instant,
    offline: bool,
    /// The entry line (tui-input: cursor keys, Home, End, Ctrl-U, Ctrl-W...).
    input: Input,
    /// Lines entered before, the oldest first, and where Up and Down are among them.
    history: Vec<String>,
    recalled: Option<usize>,
    /// The token of the entry line a refusal named: shown marked until the line changes.
    bad: Option<String>,
    /// A sale priced and waiting for Enter.
    /// With the game open when it was priced: a sale whose game has changed is asked again.
    pending: Option<(Order, Quote, Option<i64>)>,
    /// A sale sent but not confirmed: only its own request id may sell it (never sell twice).
    unconfirmed: Option<(Order, String)>,
    /// An action shown to the writer, done on Enter.
    confirm: Option<Action>,
    /// An action to do once the screen shows it is under way.
    queued: Option<Attempt>,
    /// The amount per way of a sale typed without one (`amt $2`).
    default_amount: Option<u64>,
    /// The ticket last checked: what p and x act on, and why a pay would not pay it now.
    checked: Option<(String, Option<String>)>,
    /// What cancelling the ticket last checked would do now, as the server decides it.
    cancel_preview: Option<keno_api::tickets::CancelPreview>,
    panel: Vec<String>,
    status: String,
    quit: bool,
    /// The watched folder of scanned entry forms.
    scans: Option<scan::ScanDir>,
}

pub fn run(settings: Settings) -> anyhow::Result<()> {
    let mut app = App {
        client: Client::new(settings.server, "", sign_on::TIMEOUT),
        writer: String::new(),
        session: None,
        prompt: None,
        shift: String::new(),
        game: None,
        closure: None,
        jackpots: Vec::new(),
        drawing: None,
        heard_at: Instant::now(),
        offline: false,
        input: Input::default(),
        history: Vec::new(),
        recalled: None,
        bad: None,
        pending: None,
        unconfirmed: None,
        confirm: None,
        queued: None,
        default_amount: None,
        checked: None,
        cancel_preview: None,
        panel: help(),
        status: String::new(),
        quit: false,
        scans: settings.scan_dir.map(scan::ScanDir::new),
        settings,
    };
    match app.settings.token {
        Some(token) => app.legacy(token)?,
        None => app.resume()?,
    }
    app.refresh();
    let events = subscribe(app.settings.server.to_string());
    let mut terminal = ratatui::init();
    let result = app.run(&mut terminal, events);
    ratatui::restore();
    result
}

/// A cancellation's question: what it would take back and refund (rule 8), as the server
/// decides it, within 80 columns.
fn cancel_question(serial: &str, c: &keno_api::tickets::CancelPreview) -> String {
    let games = if c.whole {
        "whole ticket".to_string()
    } else if c.from_game == c.to_game {
        format!("game {}", c.from_game)
    } else {
        format!("games {} to {}", c.from_game, c.to_game)
    };
    format!(
        "CANCEL {serial}: {games}, REFUND {}? ENTER to confirm",
        Dollars(c.refund_cents)
    )
}

/// The commands, in as many lines as the panel has at 80x24 (11), each within 78 columns.
pub(crate) fn help() -> Vec<String> {
    [
        "6 45 36 80 $3       standard (g5: five games; s1 s2 s3 j: other schedules)",
        "qp7 $2   m $1       quick pick of 7; mystery quick pick",
        "w 6 45-36 80 c2 $3  way ticket as on the receipt; several combos in one c",
        "set 3 $2  set 3 r   set bet 3 (r: random numbers of its shape); sets: the list",
        "SERIAL  CODE        check a ticket (then p pays, x cancels); show a voucher",
        "... v:CODE t:SER    pay with a voucher (v:CODE:2.50 for part) or a winner",
        "r  rp  res  ls  xl  replay, reprint, results, last sales, cancel the last",
        "shift open 500      open with the float; shift close 495: the cash counted",
        "shift  so  claim    the drawer so far; sign off; a claim form",
        "amt $2  amt off     an amount per way for sales typed without one; none",
        "scan FILE  q        a scanned entry form; quit (each token typed once: c2,3)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The event stream on a thread of its own, reconnecting when the server restarts: `None`
/// after each reconnection (events may have gone by).
fn subscribe(server: String) -> mpsc::Receiver<Option<Published>> {
    let (tx, rx) = mpsc::channel();
    let server = server.trim_end_matches('/').to_string();
    std::thread::spawn(move || loop {
        let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
        if let Ok(resp) = agent.get(format!("{server}/api/v1/events")).call() {
            let mut kind = None;
            for line in BufReader::new(resp.into_body().into_reader())
                .lines()
                .map_while(Result::ok)
            {
                if let Some(k) = line.strip_prefix("event: ") {
                    kind = EventKind::parse(k);
                } else if let (Some(d), Some(k)) = (line.strip_prefix("data: "), kind) {
                    // An event this counter cannot read is skipped; the next refresh catches up.
                    let Ok(event) = Published::read(k, d) else {
                        continue;
                    };
                    if tx.send(Some(event)).is_err() {
                        return;
                    }
                }
            }
        }
        if tx.send(None).is_err() {
            return;
        }
        std::thread::sleep(Duration::from_secs(1));
    });
    rx
}

impl App<'_> {
    fn run(
        &mut self,
        terminal: &mut DefaultTerminal,
        events: mpsc::Receiver<Option<Published>>,
    ) -> anyhow::Result<()> {
        let mut last_refresh = Instant::now();
        while !self.quit {
            self.drop_stale_panel();
            terminal.draw(|f| self.draw(f))?;
            if let Some(action) = self.queued.take() {
                self.act(action);
                continue;
            }
            while let Ok(event) = events.try_recv() {
                match event {
                    Some(event) => self.on_event(event),
                    None => self.refresh(),
                }
            }
            // Offline, the server is asked again every two seconds.
            let every = if self.offline { 2 } else { 30 };
            if last_refresh.elapsed() > Duration::from_secs(every) {
                self.refresh();
                last_refresh = Instant::now();
            }
            self.check_session();
            self.watch_scans();
            if event::poll(Duration::from_millis(200))? {
                if let Event::Key(key) = event::read()? {
                    if key.kind == KeyEventKind::Press {
                        self.on_key(key);
                    }
                }
            }
        }
        Ok(())
    }

    /// The game open and the pools, read afresh (at start, after each reconnection, and now
    /// and then). With no answer the header says OFFLINE and keeps nothing it cannot vouch for.
    fn refresh(&mut self) {
        self.game = match self.client.get::<Game>("/api/v1/games/current") {
            Ok(g) => Some((g.number, g.closes_at.parse().ok())),
            Err(CallError::Refused { .. }) => None,
            Err(_) => {
                self.offline = true;
                self.game = None;
                return;
            }
        };
        self.heard();
        self.drawing = self.game_being_drawn().or(self.drawing.take());
        if let Ok(now) = self.client.get::<ClosureInForce>("/api/v1/keno/closure") {
            self.closure = now
                .closure
                .map(|c| (c.closes_at_local, c.closes_at.parse().ok()));
        }
        if let Ok(pools) = self.client.get::<Vec<Jackpot>>("/api/v1/jackpots") {
            self.jackpots = pools
                .iter()
                .map(|p| (u64::from(p.spots), p.pool_cents))
                .collect();
        }
    }

    fn on_event(&mut self, event: Published) {
        self.heard();
        match event {
            Published::GameOpened(o) => {
                self.game = Some((o.game, o.closes_at.parse().ok()));
            }
            Published::GameClosed(c) => {
                // A draw still going on (the game before, closed early) stays shown until its
                // last number: the closed game waits for its own draw.
                let going_on = self
                    .drawing
                    .as_ref()
                    .is_some_and(|(_, ns)| !ns.is_empty() && ns.len() < 20);
                if !going_on {
                    self.drawing = Some((c.game, Vec::new()));
                }
                if self.game.map(|g| g.0) == Some(c.game) {
                    self.game = None;
                }
            }
            Published::NumberDrawn(n) => {
                if self.drawing.as_ref().map(|d| d.0) != Some(n.game) {
                    // Another game's number: its numbers so far from its record, so that two
                    // draws' numbers never mix on the line.
                    self.drawing = Some((n.game, self.drawn_so_far(n.game)));
                }
                if let Some((_, numbers)) = &mut self.drawing {
                    // By position: a number announced again after a restart is not doubled.
                    numbers.truncate(n.position.max(1) - 1);
                    numbers.push(u64::from(n.number));
                }
            }
            // Rule 10: a fault may void balls or the whole draw; the event carries what stands.
            Published::DrawFault(f) => {
                self.drawing = Some((f.game, f.drawn.iter().map(|&n| u64::from(n)).collect()));
                self.status = format!(
                    "GAME {} DRAW FAULT: {} ({})",
                    f.game,
                    f.kind.replace('_', " "),
                    f.reason
                );
            }
            Published::NumberCorrected(c) => {
                if let Some((game, numbers)) = &mut self.drawing {
                    let position = usize::try_from(c.position).unwrap_or(0);
                    if *game == c.game && (1..=numbers.len()).contains(&position) {
                        numbers[position - 1] = u64::try_from(c.number).unwrap_or(0);
                    }
                }
            }
            Published::JackpotChanged(pools) => {
                self.jackpots = pools
                    .iter()
                    .map(|p| (u64::from(p.spots), p.pool_cents))
                    .collect();
            }
            Published::GameInvalidated(i) => {
                self.status = format!(
                    "GAME {} INVALIDATED ({}): its wagers are refunded",
                    i.game, i.reason
                );
                self.refresh();
            }
            // Rule 16.2: the notice from the moment the closure is scheduled; gone if withdrawn.
            Published::KenoClosure(c) => {
                self.closure =
                    (!c.withdrawn).then(|| (c.closes_at_local, c.closes_at.parse().ok()));
            }
            Published::Resync(_) => self.refresh(),
            _ => {}
        }
    }

    fn heard(&mut self) {
        self.heard_at = Instant::now();
        self.offline = false;
    }

    /// The game being drawn now, from the server's record (after a reconnection the events
    /// missed are not replayed).
    fn game_being_drawn(&self) -> Option<(i64, Vec<u64>)> {
        let games = self
            .client
            .get::<Vec<Game>>("/api/v1/games?state=closed,drawing&order=asc&limit=1")
            .ok()?;
        let g = games.first()?;
        Some((g.number, g.drawn.iter().map(|&n| u64::from(n)).collect()))
    }

    /// The numbers of game `game` drawn so far, as its record has them (none if unread).
    fn drawn_so_far(&self, game: i64) -> Vec<u64> {
        match self.client.get::<Game>(&format!("/api/v1/games/{game}")) {
            Ok(g) => g.drawn.iter().map(|&n| u64::from(n)).collect(),
            Err(_) => Vec::new(),
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        let control = key.modifiers.contains(KeyModifiers::CONTROL);
        if control && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('q')) {
            self.quit = true;
            return;
        }
        if self.prompt.is_some() {
            self.prompt_key(key.code);
            return;
        }
        match key.code {
            KeyCode::Esc => {
                self.input.reset();
                self.bad = None;
                if self.pending.take().is_some() || self.confirm.take().is_some() {
                    self.status = "dropped: nothing done".into();
                }
            }
            KeyCode::Enter => self.entered(),
            KeyCode::Up | KeyCode::Down => self.recall(key.code == KeyCode::Up),
            _ => {
                if self
                    .input
                    .handle_event(&Event::Key(key))
                    .is_some_and(|c| c.value)
                {
                    self.bad = None;
                }
            }
        }
    }

    /// Up and Down: the lines entered before, as a shell recalls them.
    fn recall(&mut self, older: bool) {
        let at = match (self.recalled, older) {
            (None, true) => self.history.len().checked_sub(1),
            (None, false) => None,
            (Some(i), true) => Some(i.saturating_sub(1)),
            (Some(i), false) => (i + 1 < self.history.len()).then_some(i + 1),
        };
        self.recalled = at;
        let line = at.map_or(String::new(), |i| self.history[i].clone());
        self.input = Input::new(line);
        self.bad = None;
    }

    /// Enter: the line is read; a mistake keeps it, with the token at fault marked.
    fn entered(&mut self) {
        let line = self.input.value().to_string();
        self.recalled = None;
        if line.trim().is_empty() {
            self.enter();
            return;
        }
        self.pending = None;
        self.confirm = None;
        if line.trim() == "drop" {
            self.input.reset();
            if let Some((_, id)) = self.unconfirmed.take() {
                self.status = format!("unconfirmed sale set aside: it may have been sold (request id {id}); check before selling it again");
            }
            return;
        }
        match command::parse(&line, self.default_amount) {
            Ok(cmd) => {
                if self.history.last() != Some(&line) {
                    self.history.push(line);
                }
                self.input.reset();
                self.bad = None;
                self.execute(cmd);
            }
            Err(e) => {
                self.bad = quoted_token(&e).filter(|t| line.split_whitespace().any(|w| w == t));
                self.status = e;
            }
        }
    }

    /// A key typed into the open form: Enter on its last field submits it, Esc drops it (on
    /// the sign-on screen, empties it).
    fn prompt_key(&mut self, key: KeyCode) {
        let Some(mut prompt) = self.prompt.take() else {
            return;
        };
        match prompt.form.key(key) {
            Typed::Editing => self.prompt = Some(prompt),
            Typed::Missing(label) => {
                self.status = format!("type the {label}");
                self.prompt = Some(prompt);
            }
            Typed::Cancel => match prompt.purpose {
                Purpose::SignOn => {
                    prompt.form = sign_on::form(prompt.form.note);
                    self.prompt = Some(prompt);
                }
                Purpose::Approval { .. } | Purpose::HandPay(_) | Purpose::Claim => {
                    self.status = "dropped: nothing done".into();
                }
            },
            Typed::Submit => match prompt.purpose {
                Purpose::SignOn => self.submit_sign_on(prompt.form),
                Purpose::Approval {
                    attempt,
                    action,
                    serial,
                } => self.submit_approval(prompt.form, attempt, action, serial),
                Purpose::HandPay(attempt) => self.submit_hand_pay(prompt.form, attempt),
                Purpose::Claim => self.submit_claim(prompt.form),
            },
        }
    }

    /// A ticket shown to sell that is no longer waiting (dropped with ESC, set aside by a new
    /// line, or refused) leaves the panel: Enter would sell nothing, so the screen must not
    /// say it would.
    fn drop_stale_panel(&mut self) {
        let waiting = self.pending.is_some() || self.unconfirmed.is_some() || self.queued.is_some();
        if !waiting && self.panel.first().is_some_and(|l| l == to_sell::HEADING) {
            self.panel = vec![
                "NOTHING WAITING TO SELL".to_string(),
                "The ticket shown before was not sold.".to_string(),
            ];
        }
    }

    /// Enter on an empty line: do what is waiting for it.
    fn enter(&mut self) {
        if let Some((order, id)) = self.unconfirmed.clone() {
            self.status = format!("SELLING (again, request id {id})...");
            self.queued = Some(Action::Sell(order, id).into());
        } else if let Some((order, q, game)) = self.pending.take() {
            let now = self.game.map(|g| g.0);
            if now != game {
                // The game closed since the price was shown: what would be sold is shown again.
                self.status = match now {
                    Some(n) => format!("THE GAME HAS CHANGED: it would play from game {n}. ENTER to sell, ESC to drop"),
                    // Within 80 columns, the keys included.
                    None => "THE GAME HAS CHANGED: none is open now. ENTER sells into the next, ESC drops".into(),
                };
                self.panel = to_sell::lines(&order, &q, now);
                self.pending = Some((order, q, now));
                return;
            }
            self.status = "SELLING...".into();
            self.queued = Some(Action::Sell(order, new_request_id()).into());
        } else if let Some(action) = self.confirm.take() {
            self.status = "...".into();
            self.queued = Some(action.into());
        }
    }

    /// Does the action, carrying what was asked for it; a refusal a supervisor or a hand-pay
    /// answers opens the form that asks.
    fn act(&mut self, attempt: Attempt) {
        self.used();
        let client = match &attempt.grant {
            Some(grant) => self.client.with_grant(grant),
            None => self.client.clone(),
        };
        let done = match &attempt.action {
            Action::Sell(order, id) => self.sell(&client, order, id.clone()),
            Action::Pay(serial) => self.pay(&client, serial, attempt.hand_pay.as_ref()),
            Action::Cancel(serial) => self.cancel(&client, serial),
            Action::Check(serial) => self.check(&client, serial),
            Action::CloseShift(counted) => self.close_shift(*counted),
        };
        if let Err(e) = done {
            self.refused_in(attempt, e);
        }
    }

    /// A refusal in the server's words; a session the server ended, said plainly, and the
    /// sign-on screen.
    fn refused(&mut self, e: CallError) {
        match e {
            CallError::Refused { code, message, .. } if code == Refusal::SessionEnded => {
                self.session_ended(message)
            }
            e => self.status = refusal(e),
        }
    }

    fn execute(&mut self, cmd: Command) {
        self.used();
        // p and x act on the ticket just checked, and on nothing else.
        if !matches!(cmd, Command::Pay | Command::Cancel) {
            self.checked = None;
            self.cancel_preview = None;
        }
        if matches!(
            cmd,
            Command::Sell(_) | Command::SellSet(_) | Command::Replay
        ) {
            if let Some((_, id)) = &self.unconfirmed {
                self.status = format!("a sale is not confirmed (request id {id}): ENTER retries it, or type drop to set it aside");
                return;
            }
        }
        match cmd {
            Command::Sell(order) => self.quote(order),
            Command::SellSet(set) => match set.amount_cents {
                Some(_) => self.quote(set.order(0)),
                None => match self
                    .client
                    .get::<SetBet>(&format!("/api/v1/set-bets/{}", set.set))
                {
                    Ok(s) => {
                        self.quote(set.order(u64::try_from(s.amount_per_way_cents).unwrap_or(0)))
                    }
                    Err(e) => self.refused(e),
                },
            },
            Command::Sets => self.sets(),
            Command::Check(serial) => self.act(Action::Check(serial).into()),
            Command::CheckVoucher(code) => self.check_voucher(&code),
            Command::Pay | Command::Cancel => match self.checked.clone() {
                // Rule 11.5: a ticket paid, not settled or with nothing won is not offered to
                // be paid; the server would refuse it anyway.
                Some((serial, Some(why))) if cmd == Command::Pay => {
                    self.status = format!("ticket {serial}: {why}");
                }
                Some((serial, _)) => {
                    let (verb, action) = if cmd == Command::Pay {
                        ("PAY", Action::Pay(serial.clone()))
                    } else {
                        ("CANCEL", Action::Cancel(serial.clone()))
                    };
                    // A cancellation says what it takes back and refunds, as the server would,
                    // in a line that fits 80 columns.
                    self.status = match (&action, &self.cancel_preview) {
                        (Action::Cancel(_), Some(c)) => cancel_question(&serial, c),
                        _ => format!("{verb} ticket {serial}? ENTER to confirm, ESC to drop"),
                    };
                    self.confirm = Some(action);
                }
                None => self.status = "check the ticket first (type or scan its serial)".into(),
            },
            Command::Replay => {
                match (self.settings.last)().and_then(|t| Order::replay(&t.ticket)) {
                    Some(order) => self.quote(order),
                    None => self.status = "no ticket sold yet on this terminal".into(),
                }
            }
            Command::Reprint => self.reprint(),
            Command::CancelLast => self.cancel_last(),
            Command::Recent => self.recent(),
            Command::DefaultAmount(amount) => {
                self.default_amount = amount;
                self.status = match amount {
                    Some(a) => format!(
                        "DEFAULT {} A WAY: a sale typed without $ is at it",
                        Dollars(a)
                    ),
                    None => "no default amount: every sale gives its amount".into(),
                };
            }
            Command::Claim => self.open_claim(),
            Command::Results => self.results(),
            Command::Help => {
                self.panel = help();
                self.status = "HELP: the commands are above; type one, or a sale".into();
            }
            Command::Quit => self.quit = true,
            Command::SignOff => self.sign_off(),
            Command::Shift(c) => self.shift_command(c),
            Command::Scan(path) => self.scan(&path),
        }
    }

    /// A form the scanner has just written, read when the writer has nothing waiting: a sale
    /// to confirm, a question, a form open.
    fn watch_scans(&mut self) {
        let busy = self.prompt.is_some()
            || self.session.is_none()
            || self.pending.is_some()
            || self.unconfirmed.is_some()
            || self.confirm.is_some()
            || self.queued.is_some();
        let Some(scans) = self.scans.as_mut().filter(|_| !busy) else {
            return;
        };
        match scans.next() {
            Some(Ok(path)) => self.execute(Command::Scan(path)),
            Some(Err(e)) => self.status = format!("SCAN FOLDER: {e}"),
            None => {}
        }
    }

    /// An entry form's image read into its sale, priced and shown as a typed sale is; or why
    /// it cannot be, box by box, for the writer to ask the player.
    fn scan(&mut self, path: &std::path::Path) {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().to_string(),
        );
        match crate::forms::scan(path) {
            Ok(scanned) => self.quote(scanned.order),
            Err(e) => {
                // One problem a line or two, each naming its boxes.
                let said: Vec<String> = match &e {
                    crate::forms::ScanError::Refused(r) => {
                        r.problems.iter().map(|p| format!("- {p}")).collect()
                    }
                    other => vec![other.to_string()],
                };
                self.panel = std::iter::once(format!("FORM NOT READ: {name}"))
                    .chain(said.iter().flat_map(|p| wrapped(p, 76)))
                    .collect();
                self.status = "ask the player to mark the form again, or key the ticket".into();
            }
        }
    }

    /// The catalogue of set bets on sale.
    fn sets(&mut self) {
        match self.client.get::<Vec<SetBet>>("/api/v1/set-bets") {
            Ok(sets) => {
                self.panel = crate::views::set_bets(&sets);
                self.status =
                    "set bets on sale: set N $A sells one, set N r $A with random numbers".into();
            }
            Err(e) => self.refused(e),
        }
    }

    /// Prints the last receipt again, marked REPRINT, from the server's record now: a ticket
    /// cancelled or paid since says so, with the games cancelled or invalidated listed.
    fn reprint(&mut self) {
        let Some(saved) = (self.settings.last)() else {
            self.status = "no receipt printed yet on this terminal".into();
            return;
        };
        let now = self
            .client
            .get::<TicketDetail>(&format!("/api/v1/tickets/{}", saved.ticket.serial))
            .ok();
        let mut r = match &now {
            Some(d) => Receipt::from_detail(d, self.settings.casino),
            None => Receipt::from_ticket(&saved.ticket, &saved.payment, self.settings.casino),
        };
        r.reprint = true;
        self.panel = r.to_text().lines().map(str::to_string).collect();
        self.status = format!("REPRINT of ticket {}", saved.ticket.serial);
        self.print("RECEIPT TICKET (REPRINT)", &r.lines());
    }

    /// `xl`: the last ticket sold here, shown as the server has it now, and cancelled on
    /// Enter (rule 8 decides what may be).
    fn cancel_last(&mut self) {
        let Some(saved) = (self.settings.last)() else {
            self.status = "no ticket sold yet on this terminal".into();
            return;
        };
        let serial = saved.ticket.serial;
        let client = self.client.clone();
        if let Err(e) = self.check(&client, &serial) {
            return self.refused(e);
        }
        self.status = match &self.cancel_preview {
            Some(c) => cancel_question(&serial, c),
            None => format!(
                "CANCEL the last ticket sold, {serial} ({})? ENTER to confirm, ESC to drop",
                dollars(saved.ticket.total_cents)
            ),
        };
        self.confirm = Some(Action::Cancel(serial));
    }

    /// `ls`: this terminal's last sales, newest first.
    fn recent(&mut self) {
        match self
            .client
            .get::<Vec<Ticket>>(&format!("/api/v1/tickets?limit={RECENT}"))
        {
            Ok(sold) => {
                self.panel = crate::views::recent(&sold);
                self.status = format!("the last {} sale(s) of this terminal", sold.len());
            }
            Err(e) => self.refused(e),
        }
    }

    /// The server prices the sale first: the writer sees the price before it is sold.
    fn quote(&mut self, order: Order) {
        match self
            .client
            .post::<_, Quote>("/api/v1/tickets/quote", &order.body("quote"))
        {
            Ok(q) => {
                // Within 80 columns, the keys last: the ways, the amount and the tender are on
                // the panel above.
                self.status = format!(
                    "TOTAL {} FOR {} GAME{}: ENTER to sell, ESC to drop",
                    dollars(q.total_cents),
                    q.games,
                    if q.games == 1 { "" } else { "S" }
                );
                let game = self.game.map(|g| g.0);
                self.panel = to_sell::lines(&order, &q, game);
                self.pending = Some((order, q, game));
            }
            Err(e) => self.refused(e),
        }
    }

    /// Sells (retried under the same request id); a refusal is the caller's to show.
    fn sell(
        &mut self,
        client: &Client,
        order: &Order,
        request_id: String,
    ) -> Result<(), CallError> {
        match client.sell(&order.body(&request_id), 5) {
            Ok(Sale::Sold(t)) | Ok(Sale::AlreadySold(t)) => {
                self.unconfirmed = None;
                self.sold(&t);
            }
            Err(CallError::NotSent(m)) => {
                self.unconfirmed = None;
                self.status =
                    format!("NOT SOLD ({m}): the server was never reached, nothing was sold");
            }
            Err(CallError::Network(m)) => {
                self.status = format!(
                    "NOT CONFIRMED: it may be sold. ENTER retries with the same request id {request_id} ({m})"
                );
                self.unconfirmed = Some((order.clone(), request_id));
            }
            Err(e) => {
                self.unconfirmed = None;
                return Err(e);
            }
        }
        Ok(())
    }

    /// A ticket sold: its receipt shown and printed, with a tendered ticket's change voucher.
    fn sold(&mut self, t: &SoldTicket) {
        (self.settings.save_last)(t);
        let r = Receipt::from_ticket(&t.ticket, &t.payment, self.settings.casino);
        // The serial, the games and the total first: on an 80x24 screen the receipt's grid
        // runs off the bottom, not these.
        self.panel = sold_lines(&t.ticket);
        self.panel.extend(r.to_text().lines().map(str::to_string));
        let paid = crate::views::sale_payment(&t.payment);
        self.status = format!(
            "SOLD {} (ticket {}){}",
            dollars(t.ticket.total_cents),
            t.ticket.ticket_number,
            if paid.is_empty() {
                String::new()
            } else {
                format!(": {}", paid[paid.len().saturating_sub(2)..].join(", "))
            }
        );
        self.panel.extend(paid);
        let mut docs = vec![r.lines()];
        // The change of a winning ticket tendered, as a voucher for the player.
        if let Some(code) = &t.payment.change_voucher {
            match self
                .client
                .get::<Voucher>(&format!("/api/v1/vouchers/{code}"))
            {
                Ok(v) => docs.push(receipt::voucher(&v, self.settings.casino, "VOUCHER")),
                Err(e) => {
                    self.status = format!("{} - CHANGE VOUCHER NOT PRINTED: {e}", self.status)
                }
            }
        }
        self.print_docs("RECEIPT TICKET", &docs);
        self.refresh_shift();
    }

    fn check(&mut self, client: &Client, serial: &str) -> Result<(), CallError> {
        if !keno_core::serial::is_well_formed(serial) {
            self.status = format!("{serial} is not a ticket serial number: check the digits");
            return Ok(());
        }
        let t: TicketDetail = client.get(&format!("/api/v1/tickets/{serial}"))?;
        self.panel = crate::views::ticket(&t);
        self.status = crate::views::ticket_actions(&t);
        self.checked = Some((serial.to_string(), not_paying(&t)));
        self.cancel_preview = t.cancel;
        Ok(())
    }

    /// After a payment or a cancellation, the ticket as the server now has it under its slip:
    /// its status follows at once. A ticket this writer may not read (another site's, cancelled
    /// with a supervisor's approval) keeps the slip alone.
    fn follow(&mut self, serial: &str) {
        if let Ok(t) = self
            .client
            .get::<TicketDetail>(&format!("/api/v1/tickets/{serial}"))
        {
            self.panel.push(String::new());
            self.panel.extend(crate::views::ticket(&t));
            self.checked = Some((serial.to_string(), not_paying(&t)));
            self.cancel_preview = t.cancel;
        }
    }

    fn check_voucher(&mut self, code: &str) {
        if !keno_core::serial::is_voucher_code(code) {
            self.status = format!("{code} is not a voucher code: check the digits");
            return;
        }
        match self
            .client
            .get::<Voucher>(&format!("/api/v1/vouchers/{code}"))
        {
            Ok(v) => {
                self.panel = crate::views::voucher(&v);
                self.status = format!("sell with v:{code} to pay with this voucher");
            }
            Err(e) => self.refused(e),
        }
    }

    /// Pays the ticket (the server decides what rule 11 allows, and how: rule 12.2) and
    /// prints the slip, with the hand-pay of a major prize.
    fn pay(
        &mut self,
        client: &Client,
        serial: &str,
        hand_pay: Option<&HandPay>,
    ) -> Result<(), CallError> {
        let body = PayRequest {
            hand_pay: hand_pay.cloned(),
        };
        // Sent again under its request id if no answer comes: paid once, whatever happens.
        let path = format!("/api/v1/tickets/{serial}/pay");
        let paid: Payment = client.post_once(&path, &body, &crate::order::new_request_id(), 5)?;
        let (line, mut rows) = crate::views::payment(&paid);
        if let Some(h) = hand_pay {
            rows.extend(crate::approval::slip_rows(h));
        }
        self.slip(line, "PAYMENT SLIP", &rows, serial);
        self.follow(serial);
        Ok(())
    }

    /// Cancels what rule 8 allows of the ticket and prints the slip.
    fn cancel(&mut self, client: &Client, serial: &str) -> Result<(), CallError> {
        let path = format!("/api/v1/tickets/{serial}/cancel");
        let answer: Cancellation =
            client.post_once(&path, &(), &crate::order::new_request_id(), 5)?;
        let (line, rows) = crate::views::cancellation(&answer);
        self.slip(line, "CANCELLATION SLIP", &rows, serial);
        self.follow(serial);
        Ok(())
    }

    /// A payment's or cancellation's slip, shown and printed; the drawer has changed.
    fn slip(&mut self, line: String, title: &str, rows: &[(&str, String)], serial: &str) {
        self.status = line;
        self.panel = std::iter::once(format!("{title}  TICKET {serial}"))
            .chain(
                rows.iter()
                    .map(|(label, value)| format!("{label:<20}{value}")),
            )
            .collect();
        self.print(title, &receipt::slip(title, rows, serial));
        self.refresh_shift();
    }

    fn results(&mut self) {
        let newest = match self.game {
            Some((open, _)) => open - 1,
            None => self.drawing.as_ref().map_or(0, |(g, _)| *g),
        };
        if newest < 1 {
            self.status = "no game drawn yet".into();
            return;
        }
        let open = newest + 1;
        match self.client.get::<Vec<Game>>(&format!(
            "/api/v1/games?from={}&to={}",
            (open - 10).max(1),
            open - 1
        )) {
            Ok(games) => {
                self.panel = crate::views::results(&games);
                self.status = "recent results".into();
            }
            Err(e) => self.refused(e),
        }
    }

    fn print(&mut self, title: &str, lines: &[crate::receipt::Line]) {
        self.print_docs(title, &[lines.to_vec()]);
    }

    fn print_docs(&mut self, title: &str, docs: &[Vec<crate::receipt::Line>]) {
        let pages: Vec<&[crate::receipt::Line]> = docs.iter().map(Vec::as_slice).collect();
        for target in self.settings.print {
            if let Err(e) = crate::print::print_docs(target, title, &pages) {
                self.status = format!("{} - NOT PRINTED: {e:#} (rp reprints)", self.status);
            }
        }
    }

    fn draw(&self, f: &mut Frame) {
        // A status longer than the screen is wide takes lines from the panel, rather than
        // losing its end (often the key to press) at the edge.
        let said = wrapped(&self.status, usize::from(f.area().width.max(1)));
        let status_lines = u16::try_from(said.len())
            .unwrap_or(STATUS_LINES)
            .clamp(1, STATUS_LINES);
        let [head, body, input, status] = Layout::vertical([
            Constraint::Length(7),
            Constraint::Min(5),
            Constraint::Length(3),
            Constraint::Length(status_lines),
        ])
        .areas(f.area());
        f.render_widget(self.header(), head);
        let (lines, entry, title) = match &self.prompt {
            Some(p) => (
                p.form.lines(),
                p.form.entry(),
                format!(" {} ", p.form.title),
            ),
            None => (
                self.panel.clone(),
                self.input.value().to_string(),
                " ENTRY (? for help) ".to_string(),
            ),
        };
        let panel: Vec<TextLine> = lines.into_iter().map(TextLine::from).collect();
        f.render_widget(
            Paragraph::new(panel).block(Block::default().borders(Borders::ALL)),
            body,
        );
        f.render_widget(
            Paragraph::new(marked(&entry, self.bad.as_deref()))
                .block(Block::default().borders(Borders::ALL).title(title)),
            input,
        );
        if self.prompt.is_none() {
            // The cursor where the next key goes: after "│> " and the line's visual width.
            let at = input.x + 3 + self.input.visual_cursor() as u16;
            f.set_cursor_position((at.min(input.right().saturating_sub(2)), input.y + 1));
        }
        let bold = Style::default().add_modifier(Modifier::BOLD);
        f.render_widget(
            Paragraph::new(said.into_iter().map(TextLine::from).collect::<Vec<_>>())
                .style(bold)
                // A word wider than the screen is broken rather than cut.
                .wrap(Wrap { trim: true }),
            status,
        );
    }

    /// The game open, the closure's notice, the pools, the draw, the shift's drawer; who is
    /// signed on in the title.
    fn header(&self) -> Paragraph<'_> {
        let game = match self.game {
            _ if self.offline => format!(
                "OFFLINE: no answer from the server for {} s",
                self.heard_at.elapsed().as_secs()
            ),
            Some((n, Some(closes))) => {
                let left = (closes - Utc::now()).num_seconds().max(0);
                format!("GAME {n} OPEN FOR SALE: closes in {left} s")
            }
            Some((n, None)) => format!("GAME {n} OPEN FOR SALE"),
            None => "NO GAME OPEN".into(),
        };
        let pools: Vec<String> = self
            .jackpots
            .iter()
            .map(|(s, c)| format!("{s}-spot {}", Dollars(*c)))
            .collect();
        let drawing = self.drawing.as_ref().map_or(String::new(), |(g, ns)| {
            let ns: Vec<String> = ns.iter().map(|n| format!("{n:02}")).collect();
            format!("GAME {g} DRAWN: {}", ns.join(" "))
        });
        let bold = Style::default().add_modifier(Modifier::BOLD);
        let mut first = vec![TextSpan::styled(game, bold)];
        if let Some(notice) = closure_notice(self.closure.as_ref(), Utc::now()) {
            first.push(TextSpan::raw("   "));
            first.push(TextSpan::styled(
                notice,
                bold.add_modifier(Modifier::REVERSED),
            ));
        }
        Paragraph::new(vec![
            TextLine::from(first),
            TextLine::from(format!("JACKPOTS  {}", pools.join("   "))),
            TextLine::from(drawing),
            TextLine::from(TextSpan::styled(self.shift.clone(), bold)),
            TextLine::from(self.session_line()),
        ])
        .block(
            Block::default()
                .borders(Borders::ALL)
                .title(format!(" KENO WRITER  {} ", self.writer)),
        )
    }
}

impl App<'_> {
    /// The header's session line: since when, when it ends (idle, end of the Keno Day), and the
    /// default amount per way in force.
    fn session_line(&self) -> String {
        let amount = self.default_amount.map_or(String::new(), |a| {
            format!("   DEFAULT {} A WAY", Dollars(a))
        });
        let session = match &self.session {
            Some(Standing {
                saved: Some(saved),
                last_used,
            }) => {
                let s = &saved.session;
                let left = s
                    .idle_timeout_seconds
                    .saturating_sub(last_used.elapsed().as_secs());
                format!(
                    "SESSION SINCE {}: IDLE SIGN-OFF IN {} MIN, ENDS {}",
                    hh_mm(&s.started_at),
                    left.div_ceil(60),
                    hh_mm(&s.expires_at)
                )
            }
            Some(Standing { saved: None, .. }) => "WRITER TOKEN (DEPRECATED): NO SESSION".into(),
            None => return String::new(),
        };
        session + &amount
    }
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrapped(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// An instant the server sent, as hh:mm on this terminal's clock.
fn hh_mm(at: &str) -> String {
    DateTime::parse_from_rfc3339(at).map_or_else(
        |_| at.to_string(),
        |t| t.with_timezone(&chrono::Local).format("%H:%M").to_string(),
    )
}

/// The entry line as shown: "> " and the line, the token at fault (if any) reversed.
fn marked(entry: &str, bad: Option<&str>) -> TextLine<'static> {
    let mut spans = vec![TextSpan::raw("> ")];
    let at = bad.and_then(|b| {
        entry
            .match_indices(b)
            .find(|(i, _)| entry[..*i].ends_with(' ') || *i == 0)
    });
    match at {
        Some((i, b)) => {
            spans.push(TextSpan::raw(entry[..i].to_string()));
            spans.push(TextSpan::styled(
                b.to_string(),
                Style::default().add_modifier(Modifier::REVERSED),
            ));
            spans.push(TextSpan::raw(entry[i + b.len()..].to_string()));
        }
        None => spans.push(TextSpan::raw(entry.to_string())),
    }
    TextLine::from(spans)
}

/// The token a refusal names in quotes (`"c3": a second combination...`).
fn quoted_token(message: &str) -> Option<String> {
    let start = message.find('"')? + 1;
    let end = start + message[start..].find('"')?;
    Some(message[start..end].to_string())
}

/// The most lines the status takes from the panel: an 80x24 screen keeps ten for the panel.
const STATUS_LINES: u16 = 4;

/// The header's notice of an early closure (rule 16.2): "KENO CLOSES AT hh:mm" until it comes,
/// then "KENO CLOSED AT hh:mm" for the rest of the Keno Day.
fn closure_notice(
    closure: Option<&(String, Option<DateTime<Utc>>)>,
    now: DateTime<Utc>,
) -> Option<String> {
    let (hh_mm, at) = closure?;
    let closed = at.is_some_and(|at| now >= at);
    Some(if closed {
        format!("KENO CLOSED AT {hh_mm}")
    } else {
        format!("KENO CLOSES AT {hh_mm}")
    })
}

/// A sale in two lines: its number and serial; its games and total.
fn sold_lines(t: &Ticket) -> Vec<String> {
    let mut lines = vec![
        format!("SOLD No. {:06}  SERIAL {}", t.ticket_number, t.serial),
        format!(
            "GAMES {} TO {} ({})  TOTAL {}",
            t.first_game,
            t.last_game,
            t.games,
            dollars(t.total_cents)
        ),
    ];
    // The numbers sold (a quick pick's most of all) at the top, where an 80x24 screen keeps
    // them: the receipt below them runs past the panel's foot.
    lines.extend(numbers_lines(&t.groups));
    lines
}

/// "NUMBERS 03 07 11 ...", groups apart with " / ", in lines within 78 columns.
fn numbers_lines(groups: &[Vec<u8>]) -> Vec<String> {
    const WIDTH: usize = 78;
    let words: Vec<String> = groups.iter().map(|g| crate::views::group_text(g)).collect();
    let mut lines = vec!["NUMBERS".to_string()];
    for (i, group) in words.iter().enumerate() {
        for (j, number) in group.split(' ').enumerate() {
            let sep = if i > 0 && j == 0 { " / " } else { " " };
            let line = lines.last_mut().expect("one line at least");
            if line.len() + sep.len() + number.len() > WIDTH {
                lines.push(format!("        {number}"));
            } else {
                line.push_str(sep);
                line.push_str(number);
            }
        }
    }
    lines
}

/// How many sales `ls` lists: what the body of an 80x24 screen shows.
const RECENT: usize = 10;

/// Why a pay would not pay the ticket now, in the words of its panel; `None`: it would.
fn not_paying(t: &TicketDetail) -> Option<String> {
    t.not_payable
        .as_ref()
        .map(|_| format!("{}: nothing to pay", crate::views::payable_words(t)))
}

/// Cents as dollars; a negative amount (never sent) reads as nothing.
fn dollars(cents: i64) -> Dollars {
    Dollars(u64::try_from(cents).unwrap_or(0))
}

fn refusal(e: CallError) -> String {
    match e {
        // The server's words name its route; at the counter the command is what helps.
        CallError::Refused { code, .. } if code == Refusal::NoShift => {
            "REFUSED (no_shift): no shift is open at this terminal: shift open AMOUNT opens one with the float in the drawer".into()
        }
        CallError::Refused { code, message, .. } => format!("REFUSED ({code}): {message}"),
        CallError::Network(m) | CallError::NotSent(m) => format!("server not reached: {m}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status takes the lines it wraps to at the screen's width (`draw`): a network
    /// error's text after the request id makes a third line at 80 columns.
    #[test]
    fn a_long_status_is_given_the_lines_it_wraps_to() {
        assert_eq!(wrapped("SOLD $3.00 (ticket 1)", 80).len(), 1);
        assert_eq!(wrapped(&"x".repeat(80), 80).len(), 1);
        let usage =
            "a set bet is set, the set's number, r for random numbers, and the amount: set 3 r $2";
        assert_eq!(wrapped(usage, 80).len(), 2);
        assert_eq!(wrapped(usage, 120).len(), 1);
        let unconfirmed = format!(
            "NOT CONFIRMED: it may be sold. ENTER retries with the same request id {} ({})",
            "counter-7-000123",
            "an answer that is not what was asked for (502): expected value at line 1 column 1 \
             of the answer the server sent"
        );
        let lines = wrapped(&unconfirmed, 80);
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn rule_16_2_the_header_gives_notice_of_an_early_closure() {
        let at: DateTime<Utc> = "2026-11-25T10:45:00Z".parse().unwrap();
        let closure = ("21:45".to_string(), Some(at));
        let before = at - chrono::Duration::minutes(15);
        assert_eq!(
            closure_notice(Some(&closure), before).as_deref(),
            Some("KENO CLOSES AT 21:45")
        );
        assert_eq!(
            closure_notice(Some(&closure), at).as_deref(),
            Some("KENO CLOSED AT 21:45")
        );
        assert_eq!(closure_notice(None, before), None);
    }

    #[test]
    fn a_sale_refused_for_want_of_a_shift_says_the_command_that_opens_one() {
        let no_shift = CallError::Refused {
            status: 409,
            code: Refusal::NoShift.into(),
            message: "no shift is open for you at this terminal: (POST /api/v1/shifts)".into(),
        };
        let said = refusal(no_shift);
        assert!(said.contains("shift open AMOUNT"), "{said}");
        assert!(!said.contains("/api/"), "{said}");
    }
}
