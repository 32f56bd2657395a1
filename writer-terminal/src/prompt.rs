//! Questions asked at the counter by the command-line commands: a staff ID, a reason, and the
//! secrets (a PIN, a supervisor's password) typed without echo, so the queue behind the player
//! sees nothing. From a pipe (a script, a test), each answer is the next line.

use std::io::{BufRead, IsTerminal, Write};

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::terminal;

/// Whether someone is there to answer: standard input is a terminal.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal()
}

/// Asks on standard error and reads the answer (echoed): one line, trimmed.
pub fn line(question: &str) -> std::io::Result<String> {
    eprint!("{question}");
    std::io::stderr().flush()?;
    read_line()
}

/// Asks for a secret: on a terminal, read without echo; from a pipe, the next line.
pub fn secret(question: &str) -> std::io::Result<String> {
    eprint!("{question}");
    std::io::stderr().flush()?;
    if !interactive() {
        return read_line();
    }
    terminal::enable_raw_mode()?;
    let typed = read_unechoed();
    terminal::disable_raw_mode()?;
    eprintln!();
    typed
}

fn read_line() -> std::io::Result<String> {
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer)? == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "no answer (standard input ended)",
        ));
    }
    Ok(answer.trim().to_string())
}

/// Keys until Enter, none shown; Esc or Ctrl-C gives up.
fn read_unechoed() -> std::io::Result<String> {
    let mut typed = String::new();
    loop {
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        match key.code {
            KeyCode::Enter => return Ok(typed),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Err(std::io::ErrorKind::Interrupted.into())
            }
            KeyCode::Esc => return Err(std::io::ErrorKind::Interrupted.into()),
            KeyCode::Char(c) => typed.push(c),
            KeyCode::Backspace => {
                typed.pop();
            }
            _ => {}
        }
    }
}
