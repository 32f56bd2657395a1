//! The supervisor's (or inspector's) draw console: one command per line on standard input, so
//! it serves a person at a keyboard and a script alike. A supervisor finishes a draw by hand
//! after a fall-back or a stoppage (rule 10.4(b), (d)) by typing the numbers on the balls.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use clap::Args;
use serde_json::{json, Value};

use super::client::{ball_at, drawn, game_awaiting_draw, Api, CallError};
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
    let me = console.api.get("/api/v1/principals/me")?;
    println!(
        "signed on as {} ({}); `help` lists the commands",
        me["name"].as_str().unwrap_or("?"),
        me["role"].as_str().unwrap_or("?")
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
        let devices = self.call(None, "/api/v1/devices")?;
        for d in devices.as_array().into_iter().flatten() {
            let open: Vec<String> = d["holds"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|h| h["returned_at"].is_null())
                .map(|h| {
                    format!(
                        "fault {} ({}), supervisor {}, inspector {}",
                        h["fault"],
                        h["fault_kind"].as_str().unwrap_or("?"),
                        approval(&h["supervisor"]),
                        approval(&h["inspector"]),
                    )
                })
                .collect();
            println!(
                "device {} {}: {}",
                d["id"].as_str().unwrap_or("?"),
                d["name"].as_str().unwrap_or("?"),
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
        let kind = words
            .get(1)
            .ok_or("give the kind of fault")?
            .replace('-', "_");
        let mut next = 2;
        let mut body = json!({ "kind": kind });
        if kind == "broken_ball" {
            body["number"] = json!(int(words, 2, "the broken ball's number")?);
            next = 3;
        }
        if let Some(device) = words.get(next).and_then(|w| w.strip_prefix("device=")) {
            body["device"] = json!(device);
            next += 1;
        }
        body["reason"] = json!(rest(words, next));
        let done = self.call(Some(&body), &format!("/api/v1/games/{game}/faults"))?;
        println!(
            "fault {} recorded: game {} is {}, draw {}, {} entry{}",
            done["fault"]["id"],
            game,
            done["game"]["state"].as_str().unwrap_or("?"),
            done["game"]["draw_attempt"],
            done["game"]["draw_mode"].as_str().unwrap_or("?"),
            if done["device_out_of_service"] == true {
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
        let body = json!({
            "position": int(words, 1, "the position (1 to 20)")?,
            "number": int(words, 2, "the number on the ball")?,
            "reason": rest(words, 3),
        });
        let c = self.call(Some(&body), &format!("/api/v1/games/{game}/corrections"))?;
        println!(
            "correction {} asked: position {} from {} to {}; it needs {}",
            c["id"],
            c["position"],
            c["old_number"],
            c["new_number"],
            if c["supervisor"].is_null() {
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
        let c = self.call(
            Some(&json!({})),
            &format!("/api/v1/corrections/{id}/approve"),
        )?;
        println!(
            "correction {} applied: game {} position {} is now {}",
            c["id"], c["game"], c["position"], c["new_number"]
        );
        Ok(())
    }

    /// `reject ID REASON`: a correction.
    fn reject(&self, words: &[&str]) -> Result<(), String> {
        let id = int(words, 1, "the correction's id")?;
        let c = self.call(
            Some(&json!({ "reason": rest(words, 2) })),
            &format!("/api/v1/corrections/{id}/reject"),
        )?;
        println!("correction {} rejected", c["id"]);
        Ok(())
    }

    /// `return DEVICE NOTE`: this role's approval of a device's return to service.
    fn return_device(&self, words: &[&str]) -> Result<(), String> {
        let device = words.get(1).ok_or("give the device's id")?;
        let body = json!({ "note": rest(words, 2) });
        let d = self.call(Some(&body), &format!("/api/v1/devices/{device}/return"))?;
        println!(
            "device {device}: {}",
            if d["in_service"] == true {
                "back in service"
            } else {
                "approved; it needs the other role's approval too"
            }
        );
        Ok(())
    }

    fn call(&self, body: Option<&Value>, path: &str) -> Result<Value, String> {
        match body {
            Some(body) => self.api.post(path, body),
            None => self.api.get(path),
        }
        .map_err(said)
    }

    fn game(&self, number: i64) -> Result<Value, String> {
        self.api.game(number).map_err(said)
    }

    fn current_game(&mut self) -> Result<i64, String> {
        if let Some(game) = self.game {
            return Ok(game);
        }
        let game = game_awaiting_draw(&self.api)
            .map_err(|e| e.to_string())?
            .ok_or("no game is waiting for a draw; name one with `game N`")?;
        let number = game["number"].as_i64().ok_or("a game has a number")?;
        self.game = Some(number);
        Ok(number)
    }

    fn show(&mut self) -> Result<(), String> {
        let game = self.current_game()?;
        let g = self.game(game)?;
        let drawn: Vec<String> = drawn(&g).iter().map(u8::to_string).collect();
        println!(
            "game {game}: {}, draw {}, {} entry, {} of 20 drawn: {}",
            g["state"].as_str().unwrap_or("?"),
            g["draw_attempt"],
            g["draw_mode"].as_str().unwrap_or("?"),
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
            let position = drawn(&before).len() + 1;
            let path = format!("/api/v1/games/{game}/balls");
            let body = json!({ "number": n, "attempt": before["draw_attempt"] });
            let taken = match self.api.post(&path, &body) {
                Ok(taken) => taken,
                // No answer: the record says whether the ball went in; it is never sent twice.
                Err(CallError::Network(e)) => {
                    let after = self.game(game)?;
                    if ball_at(&after, position) != Some(n) {
                        return Err(format!(
                            "no answer for {n} ({e}) and it is not in the draw: enter it again"
                        ));
                    }
                    json!({ "position": position, "state": after["state"] })
                }
                Err(refused) => return Err(said(refused)),
            };
            println!("game {game}: ball {} = {n}", taken["position"]);
            if taken["state"] == "drawn" {
                println!("game {game}: drawn");
            }
        }
        Ok(())
    }

    fn record(&mut self) -> Result<(), String> {
        let game = self.current_game()?;
        let r = self.call(None, &format!("/api/v1/games/{game}/draw-record"))?;
        for f in r["faults"].as_array().into_iter().flatten() {
            println!(
                "fault {} (draw {}): {}{} by {} at {}: {}",
                f["id"],
                f["attempt"],
                f["kind"].as_str().unwrap_or("?"),
                f["number"]
                    .as_i64()
                    .map_or(String::new(), |n| format!(" {n}")),
                f["principal_id"].as_str().unwrap_or("?"),
                f["recorded_at"].as_str().unwrap_or("?"),
                f["reason"].as_str().unwrap_or("")
            );
        }
        for v in r["voided"].as_array().into_iter().flatten() {
            println!(
                "voided: draw {} ball {} = {} (fault {})",
                v["attempt"], v["position"], v["number"], v["fault"]
            );
        }
        for c in r["corrections"].as_array().into_iter().flatten() {
            println!(
                "correction {}: position {} {} -> {}, {}: {}",
                c["id"],
                c["position"],
                c["old_number"],
                c["new_number"],
                c["state"].as_str().unwrap_or("?"),
                c["reason"].as_str().unwrap_or("")
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
fn approval(by: &Value) -> &'static str {
    if by.is_null() {
        "to approve"
    } else {
        "approved"
    }
}
