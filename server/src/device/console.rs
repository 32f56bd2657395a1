//! The supervisor's (or inspector's) draw console: one command per line on standard input, so
//! it serves a person at a keyboard and a script alike. A supervisor finishes a draw by hand
//! after a fall-back or a stoppage (rule 10.4(b), (d)) by typing the numbers on the balls.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use clap::Args;
use keno_api::draw::{
    Ball, BallTaken, Correction, CorrectionRequest, Device, DrawRecord, FaultKind, FaultRecorded,
    FaultReport, RejectRequest, ReturnRequest,
};
use keno_api::games::Game;
use keno_api::principals::Me;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::client::{game_awaiting_draw, Api, CallError};
use super::Connection;

#[derive(Debug, Args)]
pub struct ConsoleArgs {
    #[command(flatten)]
    pub connection: Connection,
    /// The game to work on (default: the lowest game awaiting a draw).
    #[arg(long)]
    pub game: Option<i64>,
}

const HELP: &str = "\
commands:
  17 5 63 ...                       enter balls drawn by hand, in order (rule 10.4(b), (d))
  show                              the game: state, draw, numbers
  game N                            work on game N
  fault KIND [NUMBER] [device=ID] REASON
                                    report a fault: short-of-balls, broken-ball NUMBER,
                                    fall-back, spill, stoppage, no-device (rules 10.2, 10.4)
  correct POSITION NUMBER REASON    ask to correct a mis-transferred number (rule 10.1)
  approve ID | reject ID REASON     decide on a correction
  record                            the draw's faults, voided balls and corrections
  devices                           ball devices and whether they are in service
  return DEVICE NOTE                approve returning a device to service (what was done)
  help | quit";

pub fn run(args: ConsoleArgs) -> anyhow::Result<ExitCode> {
    let api = Api::new(&args.connection.server, &args.connection.token);
    let mut console = Console {
        api,
        game: args.game,
        refused: 0,
    };
    let me: Me = console.api.get("/api/v1/principals/me")?;
    println!(
        "signed on as {} ({}); `help` lists the commands",
        me.name, me.role
    );
    let interactive = std::io::stdin().is_terminal();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        if interactive {
            print!(
                "{}> ",
                console.game.map_or(String::new(), |g| format!("game {g} "))
            );
            std::io::stdout().flush()?;
        }
        let Some(line) = lines.next() else { break };
        let line = line?;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if matches!(line, "quit" | "exit" | "q") {
            break;
        }
        if let Err(e) = console.command(line) {
            console.refused += 1;
            println!("refused: {e}");
        }
    }
    Ok(if console.refused == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

struct Console {
    api: Api,
    game: Option<i64>,
    refused: usize,
}

impl Console {
    fn command(&mut self, line: &str) -> Result<(), String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "help" | "?" => println!("{HELP}"),
            "show" => self.show()?,
            "game" => {
                self.game = Some(int(&words, 1, "a game number")?);
                self.show()?;
            }
            "record" => self.record()?,
            "devices" => self.devices()?,
            "fault" => self.fault(&words)?,
            "correct" => self.correct(&words)?,
            "approve" => self.approve(&words)?,
            "reject" => self.reject(&words)?,
            "return" => self.return_device(&words)?,
            _ if words[0].parse::<i64>().is_ok() => self.enter_balls(&words)?,
            other => return Err(format!("{other:?} is not a command; `help` lists them")),
        }
        Ok(())
    }

    /// `devices`: each ball device, in service or held out by its faults.
    fn devices(&self) -> Result<(), String> {
        let devices: Vec<Device> = self.get("/api/v1/devices")?;
        for d in &devices {
            let open: Vec<String> = d
                .holds
                .iter()
                .filter(|h| h.returned_at.is_none())
                .map(|h| {
                    format!(
                        "fault {} ({}), supervisor {}, inspector {}",
                        h.fault,
                        h.fault_kind,
                        approval(h.supervisor.as_deref()),
                        approval(h.inspector.as_deref()),
                    )
                })
                .collect();
            println!(
                "device {} {}: {}",
                d.id,
                d.name,
                if open.is_empty() {
                    "in service".to_string()
                } else {
                    format!("OUT OF SERVICE: {}", open.join("; "))
                }
            );
        }
        Ok(())
    }

    /// `fault KIND [NUMBER] [device=ID] REASON`.
    fn fault(&mut self, words: &[&str]) -> Result<(), String> {
        let game = self.current_game()?;
        let word = words.get(1).ok_or("give the kind of fault")?;
        let kind = FaultKind::parse(&word.replace('-', "_")).ok_or_else(|| {
            format!(
                "{word:?} is not a fault: short-of-balls, broken-ball, fall-back, spill, \
                 stoppage or no-device"
            )
        })?;
        let mut next = 2;
        let mut body = FaultReport {
            kind,
            number: None,
            device: None,
            attempt: None,
            reason: String::new(),
        };
        if kind == FaultKind::BrokenBall {
            body.number = Some(int(words, 2, "the broken ball's number")?);
            next = 3;
        }
        if let Some(device) = words.get(next).and_then(|w| w.strip_prefix("device=")) {
            body.device = Some(device.to_string());
            next += 1;
        }
        body.reason = rest(words, next);
        let done: FaultRecorded = self.post(&format!("/api/v1/games/{game}/faults"), &body)?;
        println!(
            "fault {} recorded: game {} is {}, draw {}, {} entry{}",
            done.fault.id,
            game,
            done.game.state,
            done.game.draw_attempt,
            done.game.draw_mode,
            if done.device_out_of_service {
                "; the device is out of service until returned"
            } else {
                ""
            }
        );
        Ok(())
    }

    /// `correct POSITION NUMBER REASON`.
    fn correct(&mut self, words: &[&str]) -> Result<(), String> {
        let game = self.current_game()?;
        let body = CorrectionRequest {
            position: int(words, 1, "the position (1 to 20)")?,
            number: int(words, 2, "the number on the ball")?,
            reason: rest(words, 3),
        };
        let c: Correction = self.post(&format!("/api/v1/games/{game}/corrections"), &body)?;
        println!(
            "correction {} asked: position {} from {} to {}; it needs {}",
            c.id,
            c.position,
            c.old_number,
            c.new_number,
            if c.supervisor.is_none() {
                "a supervisor's approval"
            } else {
                "an inspector's approval"
            }
        );
        Ok(())
    }

    /// `approve ID`: a correction.
    fn approve(&self, words: &[&str]) -> Result<(), String> {
        let id = int(words, 1, "the correction's id")?;
        // The approval has no fields: an empty object, as the console has always sent.
        let c: Correction = self.post(
            &format!("/api/v1/corrections/{id}/approve"),
            &serde_json::Map::new(),
        )?;
        println!(
            "correction {} applied: game {} position {} is now {}",
            c.id, c.game, c.position, c.new_number
        );
        Ok(())
    }

    /// `reject ID REASON`: a correction.
    fn reject(&self, words: &[&str]) -> Result<(), String> {
        let id = int(words, 1, "the correction's id")?;
        let c: Correction = self.post(
            &format!("/api/v1/corrections/{id}/reject"),
            &RejectRequest {
                reason: rest(words, 2),
            },
        )?;
        println!("correction {} rejected", c.id);
        Ok(())
    }

    /// `return DEVICE NOTE`: this role's approval of a device's return to service.
    fn return_device(&self, words: &[&str]) -> Result<(), String> {
        let device = words.get(1).ok_or("give the device's id")?;
        let body = ReturnRequest {
            note: rest(words, 2),
            fault: None,
        };
        let d: Device = self.post(&format!("/api/v1/devices/{device}/return"), &body)?;
        println!(
            "device {device}: {}",
            if d.in_service {
                "back in service"
            } else {
                "approved; it needs the other role's approval too"
            }
        );
        Ok(())
    }

    fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, String> {
        self.api.get(path).map_err(said)
    }

    fn post<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, String> {
        self.api.post(path, body).map_err(said)
    }

    fn game(&self, number: i64) -> Result<Game, String> {
        self.api.game(number).map_err(said)
    }

    fn current_game(&mut self) -> Result<i64, String> {
        if let Some(game) = self.game {
            return Ok(game);
        }
        let game = game_awaiting_draw(&self.api)
            .map_err(|e| e.to_string())?
            .ok_or("no game is waiting for a draw; name one with `game N`")?;
        self.game = Some(game.number);
        Ok(game.number)
    }

    fn show(&mut self) -> Result<(), String> {
        let game = self.current_game()?;
        let g = self.game(game)?;
        let drawn: Vec<String> = g.drawn.iter().map(u8::to_string).collect();
        println!(
            "game {game}: {}, draw {}, {} entry, {} of 20 drawn: {}",
            g.state,
            g.draw_attempt,
            g.draw_mode,
            drawn.len(),
            drawn.join(" ")
        );
        Ok(())
    }

    fn enter_balls(&mut self, words: &[&str]) -> Result<(), String> {
        let game = self.current_game()?;
        for word in words {
            let n: i64 = word
                .parse()
                .map_err(|_| format!("{word:?} is not a number"))?;
            let before = self.game(game)?;
            let position = before.drawn.len() + 1;
            let path = format!("/api/v1/games/{game}/balls");
            let body = Ball {
                number: n,
                attempt: Some(i64::from(before.draw_attempt)),
            };
            let (position, state) = match self.api.post::<_, BallTaken>(&path, &body) {
                Ok(taken) => (taken.position, taken.state),
                // No answer: the record says whether the ball went in; it is never sent twice.
                Err(CallError::Network(e)) => {
                    let after = self.game(game)?;
                    if after.ball_at(position).map(i64::from) != Some(n) {
                        return Err(format!(
                            "no answer for {n} ({e}) and it is not in the draw: enter it again"
                        ));
                    }
                    (position, after.state)
                }
                Err(refused) => return Err(said(refused)),
            };
            println!("game {game}: ball {position} = {n}");
            if state == "drawn" {
                println!("game {game}: drawn");
            }
        }
        Ok(())
    }

    fn record(&mut self) -> Result<(), String> {
        let game = self.current_game()?;
        let r: DrawRecord = self.get(&format!("/api/v1/games/{game}/draw-record"))?;
        for f in &r.faults {
            println!(
                "fault {} (draw {}): {}{} by {} at {}: {}",
                f.row.id,
                f.row.attempt,
                f.row.kind,
                f.row.number.map_or(String::new(), |n| format!(" {n}")),
                f.row.principal_id,
                f.recorded_at,
                f.row.reason
            );
        }
        for v in &r.voided {
            println!(
                "voided: draw {} ball {} = {} (fault {})",
                v.attempt, v.position, v.number, v.fault
            );
        }
        for c in &r.corrections {
            println!(
                "correction {}: position {} {} -> {}, {}: {}",
                c.id, c.position, c.old_number, c.new_number, c.state, c.reason
            );
        }
        self.show()
    }
}

/// A call's failure as the console says it: a refusal in the server's words and its code.
fn said(e: CallError) -> String {
    match e {
        CallError::Refused { message, code, .. } => format!("{message} ({code})"),
        e => e.to_string(),
    }
}

/// Word `i` of a command as a number.
fn int(words: &[&str], i: usize, what: &str) -> Result<i64, String> {
    words
        .get(i)
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| format!("give {what}"))
}

/// The words of a command from `from` on: its reason or note.
fn rest(words: &[&str], from: usize) -> String {
    words.get(from..).map(|w| w.join(" ")).unwrap_or_default()
}

/// Whether a device's return has a role's approval.
fn approval(by: Option<&str>) -> &'static str {
    if by.is_none() {
        "to approve"
    } else {
        "approved"
    }
}
