//! A game's life cycle run in memory with simulated time (rules 8.1, 9, 10, 11.1, 17.3).
//!
//! [`SimGame`] plays the server's two tasks: it asks `clock_step` and `drawer_step` what to
//! do, does it by applying the event to the stored facts, and stores what comes back. The
//! ball device, the supervisors and the inspectors are the test itself.

use keno_core::board::NUMBERS_DRAWN;
use keno_core::game::{
    clock_step, drawer_step, invalidation_steps, transition, ClockStep, DrawMode, DrawSource,
    DrawerSettings, DrawerStep, FaultEffect, FaultKind, GameEvent, GameFacts, GameState,
    LifecycleError,
};
use keno_core::random::{distinct_numbers, draw_next};
use keno_core::{Draw, NumberSet};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const SECOND: i64 = 1_000_000;
/// How long a game is open for sale.
const INTERVAL: i64 = 180 * SECOND;
const SETTINGS: DrawerSettings = DrawerSettings {
    ball_check_micros: 15 * SECOND,
};
/// 2023-11-14T22:13:20Z: when the first game opens.
const T0: i64 = 1_700_000_000 * SECOND;

/// A game as the server stores it: its facts and its standing numbers, in drawn order.
#[derive(Clone, Debug)]
struct Stored {
    number: i64,
    facts: GameFacts,
    numbers: Vec<u8>,
}

/// The server's game clock and drawer, in memory, with a clock of its own (`now`).
struct SimGame {
    now: i64,
    source: DrawSource,
    keno_open: bool,
    games: Vec<Stored>,
    rng: ChaCha20Rng,
}

impl SimGame {
    fn new(source: DrawSource, seed: u64) -> SimGame {
        SimGame::restart(source, Vec::new(), T0, seed)
    }

    /// A driver that starts from what was stored, as a server does after a restart.
    fn restart(source: DrawSource, games: Vec<Stored>, now: i64, seed: u64) -> SimGame {
        SimGame {
            now,
            source,
            keno_open: true,
            games,
            rng: ChaCha20Rng::seed_from_u64(seed),
        }
    }

    fn game(&self, number: i64) -> &Stored {
        &self.games[(number - 1) as usize]
    }

    fn facts(&self, number: i64) -> GameFacts {
        self.game(number).facts
    }

    fn apply(&mut self, number: i64, event: GameEvent) -> Result<(), LifecycleError> {
        let now = self.now;
        let game = &mut self.games[(number - 1) as usize];
        game.facts = game.facts.apply(&event, &SETTINGS, now)?;
        Ok(())
    }

    fn open_next(&mut self) {
        let number = self.games.len() as i64 + 1;
        self.games.push(Stored {
            number,
            facts: GameFacts::new(self.source, self.now + INTERVAL),
            numbers: Vec::new(),
        });
    }

    fn open_game(&self) -> Option<(i64, i64)> {
        self.games
            .iter()
            .rev()
            .find(|g| g.facts.state.sales_open())
            .map(|g| (g.number, g.facts.closes_at))
    }

    /// A supervisor's close: like the clock's, it opens the next game in Keno hours.
    fn close(&mut self, number: i64) -> Result<(), LifecycleError> {
        self.apply(number, GameEvent::Close)?;
        if self.keno_open {
            self.open_next();
        }
        Ok(())
    }

    /// One turn of the game clock.
    fn clock(&mut self) -> ClockStep {
        let step = clock_step(self.open_game(), self.keno_open, None, self.now);
        match step {
            ClockStep::OpenNext => self.open_next(),
            ClockStep::Close { game, open_next } => {
                self.apply(game, GameEvent::Close)
                    .expect("the clock closes");
                if open_next {
                    self.open_next();
                }
            }
            ClockStep::WaitUntil(_) | ClockStep::Idle => {}
        }
        step
    }

    /// The game the drawer takes: the lowest-numbered one awaiting its draw.
    fn drawers_game(&self) -> Option<i64> {
        self.games
            .iter()
            .find(|g| g.facts.state.awaiting_draw())
            .map(|g| g.number)
    }

    /// One turn of the drawer.
    fn drawer(&mut self) -> DrawerStep {
        let Some(number) = self.drawers_game() else {
            return DrawerStep::Nothing;
        };
        let step = drawer_step(&self.facts(number), &SETTINGS, self.now);
        let done = match step {
            DrawerStep::DrawNext { position } => {
                let so_far = NumberSet::from_numbers(&self.game(number).numbers).unwrap();
                let n = draw_next(&mut self.rng, so_far);
                let drawn = self.apply(number, GameEvent::NumberDrawn { standing: position });
                drawn.map(|()| self.games[(number - 1) as usize].numbers.push(n))
            }
            DrawerStep::FinishDraw => self.apply(number, GameEvent::DrawComplete),
            DrawerStep::Settle => self.apply(number, GameEvent::Settle),
            _ => Ok(()),
        };
        done.expect("the drawer's decision is accepted");
        step
    }

    /// A ball posted by the device (or entered by hand).
    fn ball(&mut self, number: i64, n: u8) -> Result<(), LifecycleError> {
        let standing = self.game(number).numbers.len() as u8 + 1;
        self.apply(number, GameEvent::BallDrawn { standing })?;
        self.games[(number - 1) as usize].numbers.push(n);
        Ok(())
    }

    fn balls(&mut self, number: i64, balls: &[u8]) {
        for &n in balls {
            self.ball(number, n).expect("the ball is taken");
        }
    }

    /// A fault, and what it does to the stored numbers.
    fn fault(&mut self, number: i64, kind: FaultKind, ball: Option<u8>) -> LifecycleResult {
        self.apply(number, GameEvent::Fault(kind))?;
        let numbers = &mut self.games[(number - 1) as usize].numbers;
        match kind.effect() {
            FaultEffect::VoidDraw => numbers.clear(),
            FaultEffect::VoidBall => numbers.retain(|&n| Some(n) != ball),
            FaultEffect::ByHand => {}
        }
        Ok(())
    }

    /// Runs both tasks, moving the clock to each time one of them waits for, up to `end`.
    fn run_until(&mut self, end: i64) {
        assert!(end >= self.now);
        loop {
            let clock = self.clock();
            let drawer = self.drawer();
            let busy = matches!(clock, ClockStep::OpenNext | ClockStep::Close { .. })
                || matches!(
                    drawer,
                    DrawerStep::DrawNext { .. } | DrawerStep::FinishDraw | DrawerStep::Settle
                );
            if busy {
                continue;
            }
            let clock_wake = match clock {
                ClockStep::WaitUntil(t) => Some(t),
                _ => None,
            };
            let drawer_wake = match drawer {
                DrawerStep::BallCheckUntil(t) => Some(t),
                _ => None,
            };
            match clock_wake.into_iter().chain(drawer_wake).min() {
                Some(t) if t <= end => self.now = t,
                _ => {
                    self.now = end;
                    return;
                }
            }
        }
    }
}

type LifecycleResult = Result<(), LifecycleError>;

fn code(result: LifecycleResult) -> &'static str {
    result.expect_err("refused").code()
}

/// 25 distinct ball numbers: 20 for a draw and some to spare.
fn ball_numbers(seed: u64) -> Vec<u8> {
    distinct_numbers(&mut ChaCha20Rng::seed_from_u64(seed), 25)
}

fn state(sim: &SimGame, number: i64) -> GameState {
    sim.facts(number).state
}

#[test]
fn rng_game_end_to_end() {
    let mut sim = SimGame::new(DrawSource::Rng, 1);
    assert_eq!(sim.drawer(), DrawerStep::Nothing);
    assert_eq!(sim.clock(), ClockStep::OpenNext);
    assert_eq!(sim.clock(), ClockStep::WaitUntil(T0 + INTERVAL));
    assert!(state(&sim, 1).sales_open() && state(&sim, 1).cancellable());
    // The open game is not the drawer's (rule 9.2).
    assert_eq!(sim.drawer(), DrawerStep::Nothing);
    sim.now = T0 + INTERVAL - 1;
    assert_eq!(sim.clock(), ClockStep::WaitUntil(T0 + INTERVAL));
    sim.now = T0 + INTERVAL;
    let close = ClockStep::Close {
        game: 1,
        open_next: true,
    };
    assert_eq!(sim.clock(), close);
    assert_eq!(state(&sim, 1), GameState::Closed);
    assert!(state(&sim, 1).cancellable() && !state(&sim, 1).sales_open());
    assert_eq!(sim.facts(2).closes_at, T0 + 2 * INTERVAL);
    for position in 1..=NUMBERS_DRAWN as u8 {
        assert_eq!(sim.drawer(), DrawerStep::DrawNext { position });
        // Rule 8.1: once the first number is drawn nothing can be cancelled.
        assert_eq!(state(&sim, 1), GameState::Drawing);
        assert!(!state(&sim, 1).cancellable());
    }
    assert_eq!(sim.drawer(), DrawerStep::FinishDraw);
    assert_eq!(state(&sim, 1), GameState::Drawn);
    assert_eq!(sim.facts(1).drawn_at, Some(T0 + INTERVAL));
    // No ball check with the RNG: its record is official as committed (10.1).
    assert_eq!(sim.drawer(), DrawerStep::Settle);
    assert_eq!(state(&sim, 1), GameState::Settled);
    assert!(state(&sim, 1).is_final());
    assert!(Draw::new(&sim.game(1).numbers).is_ok());
    assert_eq!(sim.drawer(), DrawerStep::Nothing);

    sim.run_until(T0 + 10 * INTERVAL);
    assert!((1..=10).all(|g| state(&sim, g) == GameState::Settled));
    assert_eq!(state(&sim, 11), GameState::Open);
    assert_eq!(sim.games.len(), 11);
    assert!((1..=10).all(|g| Draw::new(&sim.game(g).numbers).is_ok()));
}

#[test]
fn keno_hours_end_and_start_again() {
    let mut sim = SimGame::new(DrawSource::Rng, 2);
    sim.run_until(T0 + INTERVAL / 2);
    sim.keno_open = false;
    // A game left open at the end of the hours still closes at its time and is drawn (9.2).
    sim.now = T0 + INTERVAL;
    let close = ClockStep::Close {
        game: 1,
        open_next: false,
    };
    assert_eq!(sim.clock(), close);
    assert_eq!(sim.clock(), ClockStep::Idle);
    sim.run_until(T0 + 5 * INTERVAL);
    assert_eq!(state(&sim, 1), GameState::Settled);
    assert_eq!(sim.games.len(), 1);
    sim.keno_open = true;
    assert_eq!(sim.clock(), ClockStep::OpenNext);
    assert_eq!(sim.facts(2).closes_at, T0 + 6 * INTERVAL);
}

#[test]
fn early_close_by_a_supervisor() {
    let mut sim = SimGame::new(DrawSource::Rng, 3);
    sim.run_until(T0 + 30 * SECOND);
    assert_eq!(state(&sim, 1), GameState::Open);
    sim.close(1).unwrap();
    assert_eq!(state(&sim, 1), GameState::Closed);
    // The next game opens at once, with a whole interval of sales.
    let next = T0 + 30 * SECOND + INTERVAL;
    assert_eq!(sim.clock(), ClockStep::WaitUntil(next));
    // A second close (the clock's, or a supervisor's retry) finds it closed.
    assert_eq!(code(sim.apply(1, GameEvent::Close)), "game_closed");
    sim.run_until(T0 + 31 * SECOND);
    assert_eq!(state(&sim, 1), GameState::Settled);
    assert_eq!(state(&sim, 2), GameState::Open);
    assert_eq!(sim.facts(2).closes_at, next);
}

/// A ball game closed for sale, with the next game open.
fn closed_ball_game(seed: u64) -> SimGame {
    let mut sim = SimGame::new(DrawSource::BallDevice, seed);
    sim.run_until(T0 + INTERVAL);
    assert_eq!(state(&sim, 1), GameState::Closed);
    assert_eq!(sim.facts(1).mode, DrawMode::Device);
    sim
}

#[test]
fn ball_game_waits_for_its_check_and_for_a_pending_correction() {
    let mut sim = closed_ball_game(4);
    let balls = ball_numbers(4);
    assert_eq!(sim.drawer(), DrawerStep::AwaitDevice);
    sim.balls(1, &balls[..19]);
    assert_eq!(state(&sim, 1), GameState::Drawing);
    assert_eq!(sim.drawer(), DrawerStep::AwaitDevice);
    sim.now += 40 * SECOND;
    let drawn_at = sim.now;
    // The 20th ball makes the game drawn at once (10.1).
    sim.ball(1, balls[19]).unwrap();
    assert_eq!(state(&sim, 1), GameState::Drawn);
    assert_eq!(sim.facts(1).drawn_at, Some(drawn_at));
    let check_until = drawn_at + SETTINGS.ball_check_micros;
    assert_eq!(sim.drawer(), DrawerStep::BallCheckUntil(check_until));
    assert_eq!(code(sim.apply(1, GameEvent::Settle)), "ball_check");
    // A supervisor checking the balls finds a number mis-transferred (10.1).
    sim.now += 5 * SECOND;
    sim.apply(1, GameEvent::CorrectionAsked).unwrap();
    sim.run_until(check_until);
    assert_eq!(sim.drawer(), DrawerStep::HeldByCorrection);
    assert_eq!(code(sim.apply(1, GameEvent::Settle)), "correction_pending");
    sim.run_until(check_until + 60 * SECOND);
    assert_eq!(state(&sim, 1), GameState::Drawn);
    // The inspector approves: the number changes, the game stays drawn, then is settled.
    sim.apply(1, GameEvent::Corrected).unwrap();
    assert_eq!(state(&sim, 1), GameState::Drawn);
    assert_eq!(sim.drawer(), DrawerStep::Settle);
    assert_eq!(state(&sim, 1), GameState::Settled);
    // Settled is final: nothing of the draw can change.
    assert_eq!(
        code(sim.apply(1, GameEvent::CorrectionAsked)),
        "already_settled"
    );
    let short = GameEvent::Fault(FaultKind::ShortOfBalls);
    assert_eq!(code(sim.apply(1, short)), "already_settled");
    // A device hears one code for every game it cannot feed.
    assert_eq!(code(sim.ball(1, balls[20])), "game_not_drawing");
}

#[test]
fn a_draw_belongs_to_its_source() {
    let mut ball_game = closed_ball_game(5);
    let number = GameEvent::NumberDrawn { standing: 1 };
    assert_eq!(code(ball_game.apply(1, number)), "not_an_rng_game");
    assert_eq!(
        code(ball_game.apply(1, GameEvent::DrawComplete)),
        "not_an_rng_game"
    );
    let mut rng_game = SimGame::new(DrawSource::Rng, 5);
    rng_game.run_until(T0 + INTERVAL);
    assert_eq!(code(rng_game.ball(1, 7)), "not_a_ball_game");
    let spill = GameEvent::Fault(FaultKind::Spill);
    assert_eq!(code(rng_game.apply(1, spill)), "not_a_ball_game");
    assert_eq!(
        code(rng_game.apply(1, GameEvent::CorrectionAsked)),
        "not_a_ball_game"
    );
}

#[test]
fn a_void_ball_is_replaced_and_a_void_draw_is_drawn_again() {
    let mut sim = closed_ball_game(6);
    let balls = ball_numbers(6);
    sim.balls(1, &balls[..5]);
    sim.apply(1, GameEvent::CorrectionAsked).unwrap();
    // 10.4(a): the broken ball's number is void, the balls after it move up.
    sim.fault(1, FaultKind::BrokenBall, Some(balls[2])).unwrap();
    let after: Vec<u8> = [&balls[..2], &balls[3..5]].concat();
    assert_eq!(sim.game(1).numbers, after);
    assert_eq!(sim.facts(1).standing, 4);
    assert_eq!(state(&sim, 1), GameState::Drawing);
    // The correction asked of position 4 would now name another ball: it lapsed.
    assert_eq!(sim.facts(1).pending_corrections, 0);
    // One more ball completes the 20.
    sim.balls(1, &balls[5..21]);
    assert_eq!(state(&sim, 1), GameState::Drawn);
    // 10.2: on checking, there were fewer than 80 balls: the draw is void, a new one starts.
    sim.now += 10 * SECOND;
    sim.fault(1, FaultKind::ShortOfBalls, None).unwrap();
    let void = sim.facts(1);
    assert_eq!(
        (void.state, void.attempt, void.standing),
        (GameState::Void, 2, 0)
    );
    assert_eq!(void.drawn_at, None);
    assert!(sim.game(1).numbers.is_empty());
    // A ball of the void draw was seen: no cancelling now (8.1).
    assert!(!void.state.cancellable());
    assert_eq!(sim.drawer(), DrawerStep::AwaitDevice);
    sim.balls(1, &balls[5..25]);
    assert_eq!(state(&sim, 1), GameState::Drawn);
    let drawn_at = sim.facts(1).drawn_at.unwrap();
    sim.run_until(drawn_at + SETTINGS.ball_check_micros);
    assert_eq!(state(&sim, 1), GameState::Settled);
    assert_eq!(sim.game(1).numbers, balls[5..25]);
    assert_eq!(sim.facts(1).attempt, 2);
}

#[test]
fn a_spill_voids_the_draw_and_a_stoppage_finishes_it_by_hand() {
    let mut sim = closed_ball_game(7);
    let balls = ball_numbers(7);
    sim.balls(1, &balls[..3]);
    // 10.4(b): the balls drawn stand; the rest are drawn by hand.
    sim.fault(1, FaultKind::FallBack, None).unwrap();
    assert_eq!(sim.facts(1).mode, DrawMode::Manual);
    let stoppage = sim.fault(1, FaultKind::Stoppage, None);
    assert_eq!(code(stoppage), "already_manual");
    // 10.4(c): a spill voids the draw; the new draw starts by the device.
    sim.fault(1, FaultKind::Spill, None).unwrap();
    let void = sim.facts(1);
    assert_eq!(
        (void.state, void.mode, void.attempt),
        (GameState::Void, DrawMode::Device, 2)
    );
    // 10.4(d): the stopped device's draw is finished by hand, from the void state on.
    sim.fault(1, FaultKind::Stoppage, None).unwrap();
    assert_eq!(state(&sim, 1), GameState::Void);
    assert_eq!(sim.facts(1).mode, DrawMode::Manual);
    sim.balls(1, &balls[..20]);
    assert_eq!(state(&sim, 1), GameState::Drawn);
    // A spill is a fault during a draw, and a fall-back too: not after the 20th ball.
    assert_eq!(
        code(sim.fault(1, FaultKind::Spill, None)),
        "game_not_drawing"
    );
    assert_eq!(
        code(sim.fault(1, FaultKind::FallBack, None)),
        "game_not_drawing"
    );
}

/// A ball game brought to `target` (open, closed, drawing, drawn or void) with a correction
/// pending where one can be.
fn ball_game_in(target: GameState) -> SimGame {
    let mut sim = SimGame::new(DrawSource::BallDevice, 8);
    assert_eq!(sim.clock(), ClockStep::OpenNext);
    if target == GameState::Open {
        return sim;
    }
    sim.close(1).unwrap();
    let balls = ball_numbers(8);
    match target {
        GameState::Closed => {}
        GameState::Drawing => sim.balls(1, &balls[..3]),
        GameState::Drawn => sim.balls(1, &balls[..20]),
        GameState::Void => {
            sim.balls(1, &balls[..3]);
            sim.fault(1, FaultKind::Spill, None).unwrap();
        }
        other => panic!("{other} is not reached here"),
    }
    if matches!(target, GameState::Drawing | GameState::Drawn) {
        sim.apply(1, GameEvent::CorrectionAsked).unwrap();
    }
    assert_eq!(state(&sim, 1), target);
    sim
}

#[test]
fn invalidation_from_every_invalidatable_state() {
    for from in GameState::ALL.into_iter().filter(|s| s.invalidatable()) {
        let mut sim = ball_game_in(from);
        if from == GameState::Open {
            // An open game is closed first, in a change of its own (17.3).
            assert_eq!(code(sim.apply(1, GameEvent::Invalidate)), "game_open");
        }
        for &event in invalidation_steps(from).unwrap() {
            match event {
                GameEvent::Close => sim.close(1).unwrap(),
                event => sim.apply(1, event).unwrap(),
            }
        }
        let facts = sim.facts(1);
        assert_eq!(facts.state, GameState::Invalidated, "from {from}");
        assert!(facts.state.is_final() && !facts.state.invalidatable());
        assert_eq!(facts.pending_corrections, 0, "the corrections lapse");
        assert_eq!(
            code(sim.apply(1, GameEvent::Invalidate)),
            "cannot_invalidate"
        );
        assert_eq!(code(sim.apply(1, GameEvent::Settle)), "game_not_drawn");
        assert_eq!(code(sim.ball(1, 80)), "game_not_drawing");
        // The drawer passes it by: the next game is the one it takes.
        assert_ne!(sim.drawers_game(), Some(1));
    }
}

#[test]
fn invalidation_is_refused_once_settled_or_invalidated() {
    let mut sim = SimGame::new(DrawSource::Rng, 9);
    sim.run_until(T0 + INTERVAL);
    assert_eq!(state(&sim, 1), GameState::Settled);
    let refused = invalidation_steps(GameState::Settled).unwrap_err();
    assert_eq!(
        (refused.code(), refused.rule()),
        ("cannot_invalidate", "17.3")
    );
    assert_eq!(
        code(sim.apply(1, GameEvent::Invalidate)),
        "cannot_invalidate"
    );
    assert_eq!(state(&sim, 1), GameState::Settled);
    let refused = invalidation_steps(GameState::Invalidated).unwrap_err();
    assert_eq!(refused.code(), "cannot_invalidate");
}

#[test]
fn an_rng_game_invalidated_mid_draw_is_passed_by_and_the_next_is_drawn() {
    let mut sim = SimGame::new(DrawSource::Rng, 10);
    sim.run_until(T0 + INTERVAL - 1);
    sim.now = T0 + INTERVAL;
    sim.clock();
    for _ in 0..4 {
        sim.drawer();
    }
    assert_eq!(sim.facts(1).standing, 4);
    sim.apply(1, GameEvent::Invalidate).unwrap();
    sim.run_until(T0 + 2 * INTERVAL);
    assert_eq!(state(&sim, 1), GameState::Invalidated);
    assert_eq!(sim.game(1).numbers.len(), 4, "never drawn further");
    assert_eq!(state(&sim, 2), GameState::Settled);
}

#[test]
fn restart_mid_draw_continues_from_the_last_committed_number() {
    let mut sim = SimGame::new(DrawSource::Rng, 11);
    sim.run_until(T0 + INTERVAL - 1);
    sim.now = T0 + INTERVAL;
    sim.clock();
    for _ in 0..7 {
        sim.drawer();
    }
    let stored = sim.games.clone();
    let first_seven = stored[0].numbers.clone();
    drop(sim);
    // Rule 10.3: the numbers drawn before the failure stand and the draw goes on from them.
    let mut again = SimGame::restart(DrawSource::Rng, stored, T0 + INTERVAL + 5 * SECOND, 99);
    assert_eq!(state(&again, 1), GameState::Drawing);
    assert_eq!(again.drawer(), DrawerStep::DrawNext { position: 8 });
    // A number committed twice (a retry of the 8th) is refused, not counted again.
    let retry = GameEvent::NumberDrawn { standing: 8 };
    assert_eq!(code(again.apply(1, retry)), "draw_out_of_order");
    again.run_until(T0 + INTERVAL + 6 * SECOND);
    assert_eq!(state(&again, 1), GameState::Settled);
    assert_eq!(again.game(1).numbers[..7], first_seven[..]);
    assert!(Draw::new(&again.game(1).numbers).is_ok());
}

#[test]
fn restart_of_a_ball_game_after_its_20th_ball_keeps_its_check_time() {
    let mut sim = closed_ball_game(12);
    sim.balls(1, &ball_numbers(12)[..20]);
    let drawn_at = sim.facts(1).drawn_at.unwrap();
    let stored = sim.games.clone();
    let mut again = SimGame::restart(DrawSource::BallDevice, stored, drawn_at + SECOND, 1);
    let until = drawn_at + SETTINGS.ball_check_micros;
    assert_eq!(again.drawer(), DrawerStep::BallCheckUntil(until));
    again.run_until(until);
    assert_eq!(state(&again, 1), GameState::Settled);
}

/// Every event the table covers: each fault kind, and the first and the 20th number or ball.
fn table_events() -> Vec<GameEvent> {
    let mut events = vec![
        GameEvent::Close,
        GameEvent::NumberDrawn { standing: 1 },
        GameEvent::NumberDrawn { standing: 20 },
        GameEvent::BallDrawn { standing: 1 },
        GameEvent::BallDrawn { standing: 20 },
        GameEvent::DrawComplete,
    ];
    events.extend(FaultKind::ALL.map(GameEvent::Fault));
    events.extend([
        GameEvent::CorrectionAsked,
        GameEvent::Corrected,
        GameEvent::CorrectionRejected,
        GameEvent::Settle,
        GameEvent::Invalidate,
    ]);
    events
}

/// What each event does in each state, in the order of `GameState::ALL`: the state it leads
/// to, or `!code` for a refusal. Written out by hand from the server's code, so that no
/// transition is allowed by accident.
#[rustfmt::skip]
const TABLE: [[&str; 7]; 17] = [
    // open            closed              drawing             drawn               settled             void                invalidated
    ["closed", "!game_closed", "!game_closed", "!game_closed", "!game_closed", "!game_closed", "!game_closed"], // close
    ["!game_not_drawing", "drawing", "drawing", "!game_not_drawing", "!already_settled", "!game_not_drawing", "!game_not_drawing"], // number 1
    ["!game_not_drawing", "drawing", "drawing", "!game_not_drawing", "!already_settled", "!game_not_drawing", "!game_not_drawing"], // number 20
    ["!game_not_drawing", "drawing", "drawing", "!game_not_drawing", "!game_not_drawing", "drawing", "!game_not_drawing"], // ball 1
    ["!game_not_drawing", "drawn", "drawn", "!game_not_drawing", "!game_not_drawing", "drawn", "!game_not_drawing"], // ball 20
    ["!game_not_drawing", "!game_not_drawing", "drawn", "!game_not_drawing", "!already_settled", "!game_not_drawing", "!game_not_drawing"], // draw complete
    ["!game_not_drawing", "void", "void", "void", "!already_settled", "void", "!game_not_drawing"], // short_of_balls
    ["!game_not_drawing", "!game_not_drawing", "drawing", "drawing", "!already_settled", "!game_not_drawing", "!game_not_drawing"], // broken_ball
    ["!game_not_drawing", "!game_not_drawing", "drawing", "!game_not_drawing", "!already_settled", "!game_not_drawing", "!game_not_drawing"], // fall_back
    ["!game_not_drawing", "void", "void", "!game_not_drawing", "!already_settled", "void", "!game_not_drawing"], // spill
    ["!game_not_drawing", "closed", "drawing", "!game_not_drawing", "!already_settled", "void", "!game_not_drawing"], // stoppage
    ["!game_not_drawing", "closed", "drawing", "!game_not_drawing", "!already_settled", "void", "!game_not_drawing"], // no_device
    ["!game_not_drawing", "!game_not_drawing", "drawing", "drawn", "!already_settled", "!game_not_drawing", "!game_not_drawing"], // correction asked
    ["!game_not_drawing", "!game_not_drawing", "drawing", "drawn", "!already_settled", "!game_not_drawing", "!game_not_drawing"], // corrected
    ["!game_not_drawing", "closed", "drawing", "drawn", "!already_settled", "void", "!game_not_drawing"], // correction rejected
    ["!game_not_drawn", "!game_not_drawn", "!game_not_drawn", "settled", "!already_settled", "!game_not_drawn", "!game_not_drawn"], // settle
    ["!game_open", "invalidated", "invalidated", "invalidated", "!cannot_invalidate", "invalidated", "!cannot_invalidate"], // invalidate
];

#[test]
fn every_state_and_event_against_the_table() {
    let events = table_events();
    assert_eq!(events.len(), TABLE.len());
    for (event, row) in events.iter().zip(TABLE) {
        for (from, cell) in GameState::ALL.into_iter().zip(row) {
            let got = transition(from, event);
            match cell.strip_prefix('!') {
                Some(code) => {
                    let e = got.expect_err(&format!("{event} from {from} is refused"));
                    assert_eq!(e.code(), code, "{event} from {from}");
                    assert!(!event.allowed_from().contains(&from), "{event} from {from}");
                }
                None => {
                    let to: GameState = cell.parse().unwrap();
                    assert_eq!(got, Ok(to), "{event} from {from}");
                    assert!(event.allowed_from().contains(&from), "{event} from {from}");
                }
            }
        }
    }
}

#[test]
fn the_faults_are_allowed_where_the_server_allows_them() {
    use GameState::*;
    let table: [(FaultKind, &[GameState]); 6] = [
        (FaultKind::ShortOfBalls, &[Closed, Drawing, Drawn, Void]),
        (FaultKind::BrokenBall, &[Drawing, Drawn]),
        (FaultKind::Spill, &[Closed, Drawing, Void]),
        (FaultKind::FallBack, &[Drawing]),
        (FaultKind::Stoppage, &[Closed, Drawing, Void]),
        (FaultKind::NoDevice, &[Closed, Drawing, Void]),
    ];
    for (kind, states) in table {
        assert_eq!(kind.allowed_in(), states, "{kind}");
        assert_eq!(GameEvent::Fault(kind).allowed_from(), states, "{kind}");
    }
}

#[test]
fn a_standing_count_outside_the_draw_is_refused() {
    for standing in [0, 21, 255] {
        for event in [
            GameEvent::NumberDrawn { standing },
            GameEvent::BallDrawn { standing },
        ] {
            let e = transition(GameState::Drawing, &event).unwrap_err();
            assert_eq!((e.code(), e.rule()), ("invalid_position", "9.1"));
        }
    }
    // No 21st number, whatever count it claims.
    let mut sim = closed_ball_game(13);
    sim.balls(1, &ball_numbers(13)[..20]);
    sim.fault(1, FaultKind::BrokenBall, Some(ball_numbers(13)[0]))
        .unwrap();
    sim.ball(1, 80).unwrap();
    let extra = GameEvent::BallDrawn { standing: 20 };
    assert_eq!(code(sim.apply(1, extra)), "game_not_drawing");
}

#[test]
fn the_clock_closes_at_the_time_and_not_before() {
    let open = Some((4, T0));
    assert_eq!(
        clock_step(open, true, None, T0 - 1),
        ClockStep::WaitUntil(T0)
    );
    let close = ClockStep::Close {
        game: 4,
        open_next: true,
    };
    assert_eq!(clock_step(open, true, None, T0), close);
    assert_eq!(clock_step(open, true, None, T0 + 1), close);
    assert_eq!(clock_step(None, true, None, T0), ClockStep::OpenNext);
    assert_eq!(clock_step(None, false, None, T0), ClockStep::Idle);
}

#[test]
fn rule_16_2_no_game_opens_after_an_early_closure_and_keno_opens_again_the_next_day() {
    let closure = Some(T0 + INTERVAL / 2);
    // A game open when the closure was scheduled closes at it, not at its own time.
    let open = Some((4, T0 + INTERVAL));
    assert_eq!(
        clock_step(open, true, closure, T0),
        ClockStep::WaitUntil(T0 + INTERVAL / 2)
    );
    // At the closure it closes, and no next game opens: Keno is closed for the day.
    assert_eq!(
        clock_step(open, true, closure, T0 + INTERVAL / 2),
        ClockStep::Close {
            game: 4,
            open_next: false
        }
    );
    assert_eq!(
        clock_step(None, true, closure, T0 + INTERVAL),
        ClockStep::Idle
    );
    // A game closing before the closure keeps its time, and the next one may open.
    let early = Some((4, T0 + INTERVAL / 4));
    assert_eq!(
        clock_step(early, true, closure, T0 + INTERVAL / 4),
        ClockStep::Close {
            game: 4,
            open_next: true
        }
    );
    // The next Keno Day has no closure in force (it was today's): games open as usual, so the
    // unplayed games of multi-game tickets, the next game numbers, are played then.
    assert_eq!(
        clock_step(None, true, None, T0 + 100 * INTERVAL),
        ClockStep::OpenNext
    );
}

/// What the facts of any game reached by the rules look like.
fn consistent(f: &GameFacts) -> Result<(), String> {
    use GameState::*;
    let checks = [
        (
            f.standing as usize <= NUMBERS_DRAWN,
            "at most 20 numbers stand",
        ),
        (
            f.state != Open
                || (f.standing == 0
                    && f.attempt == 1
                    && f.mode == DrawMode::initial(f.source)
                    && f.drawn_at.is_none()
                    && f.pending_corrections == 0),
            "an open game is as it opened",
        ),
        (
            f.state != Closed || f.standing == 0,
            "a closed game has no number",
        ),
        (
            !matches!(f.state, Drawn | Settled)
                || (f.standing as usize == NUMBERS_DRAWN && f.drawn_at.is_some()),
            "a drawn game has its 20 numbers and its time",
        ),
        (
            f.drawn_at.is_none() || f.standing as usize == NUMBERS_DRAWN,
            "a drawing time only with 20 numbers",
        ),
        (
            f.state != Void || (f.standing == 0 && f.drawn_at.is_none() && f.attempt >= 2),
            "a void draw has no number left and counts an attempt",
        ),
        (
            f.pending_corrections == 0 || (f.standing > 0 && matches!(f.state, Drawing | Drawn)),
            "corrections pend only of standing numbers not settled",
        ),
        (
            f.source != DrawSource::Rng
                || (f.mode == DrawMode::Rng && f.attempt == 1 && f.state != Void),
            "an RNG draw has no fault",
        ),
        (
            f.source != DrawSource::BallDevice || f.mode != DrawMode::Rng,
            "a ball draw is by device or by hand",
        ),
    ];
    match checks.iter().find(|(ok, _)| !ok) {
        Some((_, what)) => Err(format!("{what}: {f:?}")),
        None => Ok(()),
    }
}

/// An event to try, its standing count given relative to the facts it is tried on, so that
/// most numbers and balls are the next one and some are not.
#[derive(Clone, Copy, Debug)]
enum Try {
    Close,
    Number(i16),
    Ball(i16),
    Complete,
    Fault(FaultKind),
    Asked,
    Corrected,
    Rejected,
    Settle,
    Invalidate,
    /// Time passes, in seconds.
    Wait(i64),
}

impl Try {
    fn event(self, f: &GameFacts) -> Option<GameEvent> {
        let standing = |offset: i16| (i16::from(f.standing) + 1 + offset).clamp(0, 255) as u8;
        Some(match self {
            Try::Close => GameEvent::Close,
            Try::Number(o) => GameEvent::NumberDrawn {
                standing: standing(o),
            },
            Try::Ball(o) => GameEvent::BallDrawn {
                standing: standing(o),
            },
            Try::Complete => GameEvent::DrawComplete,
            Try::Fault(kind) => GameEvent::Fault(kind),
            Try::Asked => GameEvent::CorrectionAsked,
            Try::Corrected => GameEvent::Corrected,
            Try::Rejected => GameEvent::CorrectionRejected,
            Try::Settle => GameEvent::Settle,
            Try::Invalidate => GameEvent::Invalidate,
            Try::Wait(_) => return None,
        })
    }
}

fn a_try() -> impl Strategy<Value = Try> {
    let offset = prop_oneof![8 => Just(0i16), 1 => -2i16..=2];
    let fault = proptest::sample::select(FaultKind::ALL.to_vec());
    prop_oneof![
        2 => Just(Try::Close),
        12 => offset.clone().prop_map(Try::Number),
        12 => offset.prop_map(Try::Ball),
        2 => Just(Try::Complete),
        2 => fault.prop_map(Try::Fault),
        1 => Just(Try::Asked),
        1 => Just(Try::Corrected),
        1 => Just(Try::Rejected),
        2 => Just(Try::Settle),
        1 => Just(Try::Invalidate),
        2 => (0i64..30).prop_map(Try::Wait),
    ]
}

fn a_source() -> impl Strategy<Value = DrawSource> {
    proptest::sample::select(DrawSource::ALL.to_vec())
}

/// The drawer's decision is one the facts accept (or, while waiting, refuse for the reason
/// it waits).
fn drawer_agrees(f: &GameFacts, now: i64) -> Result<(), TestCaseError> {
    let settle = f.apply(&GameEvent::Settle, &SETTINGS, now);
    match drawer_step(f, &SETTINGS, now) {
        DrawerStep::DrawNext { position } => {
            let event = GameEvent::NumberDrawn { standing: position };
            prop_assert!(f.apply(&event, &SETTINGS, now).is_ok());
        }
        DrawerStep::FinishDraw => {
            prop_assert!(f.apply(&GameEvent::DrawComplete, &SETTINGS, now).is_ok())
        }
        DrawerStep::Settle => prop_assert!(settle.is_ok()),
        DrawerStep::BallCheckUntil(until) => {
            prop_assert_eq!(settle.map_err(|e| e.code()), Err("ball_check"));
            prop_assert!(until > now);
        }
        DrawerStep::HeldByCorrection => {
            prop_assert_eq!(settle.map_err(|e| e.code()), Err("correction_pending"))
        }
        DrawerStep::AwaitDevice => prop_assert_eq!(f.source, DrawSource::BallDevice),
        DrawerStep::Nothing => prop_assert!(!f.state.awaiting_draw()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_events_never_reach_an_illegal_state(
        source in a_source(),
        tries in prop::collection::vec(a_try(), 0..200),
    ) {
        let mut facts = GameFacts::new(source, T0 + INTERVAL);
        let mut now = T0;
        for t in tries {
            let Some(event) = t.event(&facts) else {
                if let Try::Wait(seconds) = t {
                    now += seconds * SECOND;
                }
                continue;
            };
            let state_alone = transition(facts.state, &event);
            match facts.apply(&event, &SETTINGS, now) {
                Ok(next) => {
                    prop_assert!(!facts.state.is_final(), "left {} by {}", facts.state, event);
                    prop_assert_eq!(state_alone, Ok(next.state));
                    prop_assert!(event.allowed_from().contains(&facts.state));
                    consistent(&next).map_err(TestCaseError::fail)?;
                    facts = next;
                }
                Err(e) => {
                    prop_assert!(!e.code().is_empty() && !e.rule().is_empty());
                    // A refusal by the state alone is the same refusal.
                    if let Err(alone) = state_alone {
                        if event.source().is_none_or(|s| s == facts.source) {
                            prop_assert_eq!(alone, e);
                        }
                    }
                }
            }
            drawer_agrees(&facts, now)?;
        }
    }

    #[test]
    fn the_drawer_alone_settles_every_rng_game(seed in any::<u64>(), games in 1i64..6) {
        let mut sim = SimGame::new(DrawSource::Rng, seed);
        sim.run_until(T0 + games * INTERVAL);
        for g in 1..=games {
            prop_assert_eq!(state(&sim, g), GameState::Settled);
            prop_assert!(Draw::new(&sim.game(g).numbers).is_ok());
        }
        prop_assert_eq!(state(&sim, games + 1), GameState::Open);
    }

    #[test]
    fn the_clock_never_closes_early(
        closes_at in T0..T0 + INTERVAL,
        now in T0..T0 + INTERVAL,
        keno_open in any::<bool>(),
    ) {
        match clock_step(Some((1, closes_at)), keno_open, None, now) {
            ClockStep::Close { game, open_next } => {
                prop_assert!(closes_at <= now);
                prop_assert_eq!((game, open_next), (1, keno_open));
            }
            ClockStep::WaitUntil(t) => prop_assert!(t == closes_at && t > now),
            other => prop_assert!(false, "{:?} with a game open", other),
        }
    }
}
