//! A simulated ball machine: 80 balls, one drawn every `--pace` seconds and posted to the
//! server, each fault of rule 10 on demand. It keeps going through what a real device meets:
//! a server restarted mid-draw (it goes on from the server's last committed ball, rule 10.3), a
//! lost answer (it asks the server whether the ball was taken before sending it again), a draw
//! voided (it refills and draws again), being taken out of service (it waits to be returned).

use std::process::ExitCode;
use std::str::FromStr;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use getrandom::SysRng;
use keno_api::draw::{Ball, BallTaken, Device, FaultKind, FaultRecorded, FaultReport};
use keno_api::games::Game;
use keno_api::principals::{Me, Role};
use keno_api::Refusal;
use keno_core::random::uniform_below;
use rand_core::UnwrapErr;

use super::client::{game_awaiting_draw, Api, CallError};
use super::Connection;

#[derive(Debug, Args)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub connection: Connection,
    /// Seconds between two balls (a ball machine draws one every second or two).
    #[arg(long, default_value_t = 1.5)]
    pub pace: f64,
    /// Stop after drawing this many games (default: keep drawing).
    #[arg(long)]
    pub games: Option<u32>,
    /// Stop when no game has waited for a draw for this many seconds (default: wait forever).
    #[arg(long)]
    pub idle_exit: Option<f64>,
    /// Inject a fault: KIND@BALLS[/GAME], after BALLS balls of the GAME-th game this run draws
    /// (default the first). KIND: short-of-balls (10.2), broken-ball (10.4(a): the last ball
    /// drawn), fall-back (10.4(b)), spill (10.4(c)), stoppage (10.4(d)), or mis-transfer (the
    /// next ball is sent as a different number, for a correction under 10.1). Repeatable.
    #[arg(long = "fault", value_name = "KIND@BALLS[/GAME]")]
    pub faults: Vec<FaultPlan>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Injected {
    ShortOfBalls,
    BrokenBall,
    FallBack,
    Spill,
    Stoppage,
    MisTransfer,
}

#[derive(Clone, Debug)]
pub struct FaultPlan {
    kind: Injected,
    after_balls: usize,
    game: u32,
}

impl FromStr for FaultPlan {
    type Err = String;

    fn from_str(s: &str) -> Result<FaultPlan, String> {
        let (kind, at) = s
            .split_once('@')
            .ok_or_else(|| format!("{s:?}: give KIND@BALLS, e.g. broken-ball@5"))?;
        let kind = match kind {
            "short-of-balls" => Injected::ShortOfBalls,
            "broken-ball" => Injected::BrokenBall,
            "fall-back" => Injected::FallBack,
            "spill" => Injected::Spill,
            "stoppage" => Injected::Stoppage,
            "mis-transfer" => Injected::MisTransfer,
            other => {
                return Err(format!(
                    "{other:?} is not a fault: short-of-balls, broken-ball, fall-back, spill, \
                     stoppage or mis-transfer"
                ))
            }
        };
        let (balls, game) = match at.split_once('/') {
            Some((balls, game)) => (balls, game),
            None => (at, "1"),
        };
        let after_balls: usize = balls
            .parse()
            .ok()
            .filter(|b| *b < 20)
            .ok_or_else(|| format!("{balls:?}: the fault comes after 0 to 19 balls"))?;
        let game: u32 = game
            .parse()
            .ok()
            .filter(|g| *g >= 1)
            .ok_or_else(|| format!("{game:?}: the game is counted from 1"))?;
        if matches!(kind, Injected::BrokenBall | Injected::FallBack) && after_balls == 0 {
            return Err("a broken ball or a fall-back comes after at least one ball".into());
        }
        Ok(FaultPlan {
            kind,
            after_balls,
            game,
        })
    }
}

struct Machine {
    api: Api,
    me: String,
    pace: Duration,
    plans: Vec<FaultPlan>,
}

/// How a game's draw ended for the device.
enum Outcome {
    /// 20 balls: the game is drawn.
    Drawn,
    /// Not this device's to finish now: voided, handed to manual entry, out of service.
    Left,
}

/// A game's draw as the machine holds it.
struct Drawing {
    number: i64,
    attempt: i64,
    /// The balls out, as the server recorded them.
    drawn: Vec<u8>,
    /// The balls still in the machine.
    machine: Vec<u8>,
    /// The next ball is to be sent as another number.
    mis_transfer: bool,
}

impl Drawing {
    /// The draw as the server left it: a restart goes on from its last committed ball.
    fn resumed(game: &Game) -> Drawing {
        let drawn = game.drawn.clone();
        Drawing {
            number: game.number,
            attempt: i64::from(game.draw_attempt),
            machine: (1..=80).filter(|n| !drawn.contains(n)).collect(),
            drawn,
            mis_transfer: false,
        }
    }

    /// A void draw: every ball back in the machine, drawn again as the next attempt.
    fn refill(&mut self) {
        self.attempt += 1;
        self.drawn.clear();
        self.machine = (1..=80).collect();
    }

    fn take_ball(&mut self) -> u8 {
        let i = uniform_below(&mut UnwrapErr(SysRng), self.machine.len() as u32);
        self.machine.swap_remove(i as usize)
    }

    /// The next ball out of the machine, and the number sent for it.
    fn next_ball(&mut self) -> (u8, u8) {
        let ball = self.take_ball();
        if !std::mem::take(&mut self.mis_transfer) {
            return (ball, ball);
        }
        // Another number; the simulated machine then holds neither ball, so the draw can go on
        // until the record is corrected to the ball's number (rule 10.1).
        let wrong = self.take_ball();
        let position = self.drawn.len() + 1;
        println!(
            "game {}: ball {position} shows {ball} but the feed sent {wrong} \
             (a mis-transfer: correct position {position} to {ball})",
            self.number
        );
        (ball, wrong)
    }
}

pub fn run(args: SimulateArgs) -> anyhow::Result<ExitCode> {
    let api = Api::new(&args.connection.server, &args.connection.token);
    let me: Me = wait_for(|| api.get("/api/v1/principals/me"))?;
    if me.role != Role::Device {
        anyhow::bail!("the token is a {}'s, not a ball device's", me.role);
    }
    let mut machine = Machine {
        api,
        me: me.id,
        pace: Duration::try_from_secs_f64(args.pace).context("--pace is 0 or more seconds")?,
        plans: args.faults,
    };
    let mut drawn_games = 0u32;
    let mut idle_since = Instant::now();
    let mut last_wait_note = String::new();
    loop {
        if args.games.is_some_and(|n| drawn_games >= n) {
            return Ok(ExitCode::SUCCESS);
        }
        let game = match wait_for(|| game_awaiting_draw(&machine.api))? {
            Some(game) if game.source == "ball_device" => game,
            _ => {
                if args
                    .idle_exit
                    .is_some_and(|s| idle_since.elapsed().as_secs_f64() > s)
                {
                    println!("no game to draw: stopping");
                    return Ok(ExitCode::SUCCESS);
                }
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
        };
        idle_since = Instant::now();
        if let Some(note) = machine.why_wait(&game)? {
            if note != last_wait_note {
                println!("{note}");
                last_wait_note = note;
            }
            std::thread::sleep(Duration::from_millis(500));
            continue;
        }
        last_wait_note.clear();
        match machine.draw(&game, drawn_games + 1)? {
            Outcome::Drawn => drawn_games += 1,
            // Looked at again shortly: the game's state says what comes next.
            Outcome::Left => std::thread::sleep(Duration::from_millis(500)),
        }
    }
}

impl Machine {
    /// Why this device is not to draw game `game` now, if it is not.
    fn why_wait(&self, game: &Game) -> anyhow::Result<Option<String>> {
        let number = game.number;
        if game.draw_mode == "manual" {
            return Ok(Some(format!(
                "game {number} is being finished by hand: waiting"
            )));
        }
        Ok(self.out_of_service(number)?.map(|hold| {
            format!(
                "out of service since fault {hold}: waiting for a supervisor and an inspector \
                 to return this device (rule 10.4)"
            )
        }))
    }

    /// The fault holding this device out of service for game `number`, if any.
    fn out_of_service(&self, number: i64) -> anyhow::Result<Option<i64>> {
        let device: Device = wait_for(|| self.api.get(&format!("/api/v1/devices/{}", self.me)))?;
        Ok(device
            .holds
            .iter()
            .find(|h| h.returned_at.is_none() && h.blocks_from_game <= number)
            .map(|h| h.fault))
    }

    /// Draws game `game` from its last committed ball (rule 10.3) to the 20th, injecting the
    /// faults planned for the `nth` game of this run.
    fn draw(&mut self, game: &Game, nth: u32) -> anyhow::Result<Outcome> {
        let mut d = Drawing::resumed(game);
        println!(
            "game {}: drawing (draw {}) from ball {}",
            d.number,
            d.attempt,
            d.drawn.len() + 1
        );
        while d.drawn.len() < 20 {
            for plan in self.due(nth, d.drawn.len()) {
                if let Some(outcome) = self.inject(plan.kind, &mut d)? {
                    return Ok(outcome);
                }
            }
            std::thread::sleep(self.pace);
            let (ball, sent) = d.next_ball();
            let number = d.number;
            match self.post_ball(number, d.attempt, d.drawn.len() + 1, sent)? {
                Posted::Taken(taken) => {
                    // The server's record is the one to go on from.
                    d.drawn = taken.drawn;
                    println!("game {number}: ball {} = {ball}", d.drawn.len());
                    if taken.state == "drawn" {
                        println!("game {number}: drawn");
                        return Ok(Outcome::Drawn);
                    }
                }
                Posted::Refused(e) => {
                    println!("game {number}: ball {ball} refused: {e}");
                    return Ok(Outcome::Left);
                }
            }
        }
        Ok(Outcome::Drawn)
    }

    /// The faults planned for after `balls` balls of the `nth` game, taken from the plan: each
    /// is injected once.
    fn due(&mut self, nth: u32, balls: usize) -> Vec<FaultPlan> {
        let is_due = |p: &FaultPlan| p.game == nth && p.after_balls == balls;
        let due = self.plans.iter().filter(|p| is_due(p)).cloned().collect();
        self.plans.retain(|p| !is_due(p));
        due
    }

    /// Injects a fault into the draw; `Some` when the device is to leave the game to others.
    fn inject(&self, kind: Injected, d: &mut Drawing) -> anyhow::Result<Option<Outcome>> {
        let number = d.number;
        let fault = |kind: FaultKind, ball: Option<u8>, why: &str| {
            self.fault(number, d.attempt, kind, ball, why)
        };
        match kind {
            Injected::MisTransfer => d.mis_transfer = true,
            Injected::ShortOfBalls => {
                fault(FaultKind::ShortOfBalls, None, "79 balls in the machine")?;
                println!("game {number}: draw void (rule 10.2); refilled, drawing again");
                d.refill();
            }
            Injected::BrokenBall => {
                let broken = *d.drawn.last().context("a ball was drawn")?;
                fault(
                    FaultKind::BrokenBall,
                    Some(broken),
                    "a piece of a broken ball was drawn",
                )?;
                d.drawn.pop();
                println!(
                    "game {number}: ball {broken} broken and void (rule 10.4(a)); one more ball"
                );
            }
            Injected::FallBack => {
                fault(FaultKind::FallBack, None, "drawn balls fell back")?;
                println!("game {number}: fall-back; to be finished by hand (10.4(b))");
                return Ok(Some(Outcome::Left));
            }
            Injected::Stoppage => {
                fault(FaultKind::Stoppage, None, "the blower stopped")?;
                println!("game {number}: stopped; to be finished by hand (10.4(d))");
                return Ok(Some(Outcome::Left));
            }
            Injected::Spill => {
                fault(FaultKind::Spill, None, "balls spilled from the machine")?;
                println!("game {number}: spill; draw void, out of service (10.4(c))");
                return Ok(Some(Outcome::Left));
            }
        }
        Ok(None)
    }

    /// Reports a fault of draw `attempt`. After a lost answer it reads the game to see whether
    /// the fault landed before sending it again, so a fault is never recorded twice.
    fn fault(
        &self,
        game: i64,
        attempt: i64,
        kind: FaultKind,
        number: Option<u8>,
        reason: &str,
    ) -> anyhow::Result<()> {
        let body = FaultReport {
            kind,
            number: number.map(i64::from),
            device: None,
            attempt: Some(attempt),
            reason: format!("simulated: {reason}"),
        };
        let path = format!("/api/v1/games/{game}/faults");
        let kind = kind.as_str();
        loop {
            match self.api.post::<_, FaultRecorded>(&path, &body) {
                Ok(_) => return Ok(()),
                Err(CallError::Network(e)) => {
                    println!("game {game}: no answer to the {kind} report ({e}); checking");
                    std::thread::sleep(Duration::from_millis(500));
                    let shown = wait_for(|| self.api.game(game))?;
                    let landed = match body.kind {
                        FaultKind::ShortOfBalls | FaultKind::Spill => {
                            i64::from(shown.draw_attempt) > attempt
                        }
                        FaultKind::BrokenBall => !shown.drawn.contains(&number.unwrap_or(0)),
                        _ => shown.draw_mode == "manual",
                    };
                    if landed {
                        return Ok(());
                    }
                }
                Err(e) => anyhow::bail!("the {kind} fault of game {game} was refused: {e}"),
            }
        }
    }

    /// Posts ball `position`; after a lost answer, looks whether the server took it before
    /// sending it again, so a ball is never sent twice.
    fn post_ball(
        &self,
        game: i64,
        attempt: i64,
        position: usize,
        number: u8,
    ) -> anyhow::Result<Posted> {
        let path = format!("/api/v1/games/{game}/balls");
        let mut resent = false;
        loop {
            let ball = Ball {
                number: i64::from(number),
                attempt: Some(attempt),
            };
            match self.api.post(&path, &ball) {
                Ok(taken) => return Ok(Posted::Taken(taken)),
                Err(CallError::Network(e)) => {
                    println!("game {game}: no answer for ball {position} ({e}); asking again");
                    std::thread::sleep(Duration::from_millis(500));
                    let shown = wait_for(|| self.api.game(game))?;
                    if shown.ball_at(position) == Some(number) {
                        return Ok(Posted::Taken(taken_as_shown(shown, position)));
                    }
                    if shown.drawn.len() >= position {
                        return Ok(Posted::Refused(format!(
                            "the draw moved on meanwhile (position {position} holds another \
                             number)"
                        )));
                    }
                    resent = true;
                }
                Err(CallError::Refused { code, .. })
                    if resent && code == Refusal::DuplicateBall =>
                {
                    // The lost request landed after all, between the look and the resend.
                    let shown = wait_for(|| self.api.game(game))?;
                    if shown.ball_at(position) == Some(number) {
                        return Ok(Posted::Taken(taken_as_shown(shown, position)));
                    }
                    return Ok(Posted::Refused(format!("{number} is already drawn")));
                }
                Err(refused) => return Ok(Posted::Refused(refused.to_string())),
            }
        }
    }
}

enum Posted {
    /// The ball as the server took it, with the draw after it.
    Taken(BallTaken),
    Refused(String),
}

/// A ball whose answer was lost, as the game read afterwards shows it taken at `position`.
fn taken_as_shown(game: Game, position: usize) -> BallTaken {
    BallTaken {
        game: game.number,
        position,
        number: game.ball_at(position).unwrap_or(0),
        state: game.state,
        drawn: game.drawn,
    }
}

/// Calls until the server answers: a device outlives the server's restarts (rule 10.3).
fn wait_for<T>(mut call: impl FnMut() -> Result<T, CallError>) -> anyhow::Result<T> {
    let mut said = false;
    loop {
        match call() {
            Ok(v) => return Ok(v),
            // A server restarting, or its database, answers 5xx for a moment.
            Err(CallError::Network(e))
            | Err(CallError::Refused {
                status: 500..,
                message: e,
                ..
            }) => {
                if !said {
                    println!("server unreachable ({e}); retrying");
                    said = true;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => return Err(e.into()),
        }
    }
}
