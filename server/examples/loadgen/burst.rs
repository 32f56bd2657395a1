//! `--burst`: the rush in the last seconds before a close, when a network sells most (issue 21).
//!
//! Every terminal sells as fast as it can from 5 seconds before the open game's close until a
//! second after it. A sale that races the close lands in the closing game or is sent on to the
//! next one by the server; one that finds no game open even after that is refused
//! (`game_closed`). Each is counted apart from failures, which a burst must not cause.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{new_agent, percentile_ms, sale, sell};

/// From this long before the close.
const RUSH: Duration = Duration::from_secs(5);
/// Until this long after it.
const AFTER: Duration = Duration::from_secs(1);

/// What the terminals' sales came to.
#[derive(Default)]
struct Tally {
    /// Sold into the closing game: how long each took, in µs, and when it was answered.
    in_game: Vec<(u64, Instant)>,
    /// Sold into a later game (the server sent it on past the close).
    sent_on: u64,
    /// Refused for the close: no game open for sale.
    refused_for_close: u64,
    /// Anything else: a finding.
    failed: Vec<String>,
}

pub fn run(bases: &[String], writers: &[String], run: &str) -> anyhow::Result<()> {
    let (game, closes_at) = wait_for_rush(&bases[0])?;
    let until = closes_at + AFTER;
    let started = Instant::now();
    let handles: Vec<_> = writers
        .iter()
        .enumerate()
        .map(|(t, token)| {
            let url = format!("{}/api/v1/tickets", bases[t % bases.len()]);
            let (token, run) = (token.clone(), run.to_string());
            std::thread::spawn(move || {
                terminal(&url, &token, &format!("{run}-burst-{t}"), game, until)
            })
        })
        .collect();
    let mut all = Tally::default();
    for h in handles {
        let t = h.join().expect("a terminal's thread");
        all.in_game.extend(t.in_game);
        all.sent_on += t.sent_on;
        all.refused_for_close += t.refused_for_close;
        all.failed.extend(t.failed);
    }
    report(game, closes_at, started, &mut all);
    anyhow::ensure!(all.failed.is_empty(), "sales failed in the burst");
    Ok(())
}

/// The open game with more than the rush to go, once its rush begins: its number and its
/// close on this machine's monotonic clock.
fn wait_for_rush(base: &str) -> anyhow::Result<(i64, Instant)> {
    let agent = Arc::new(new_agent());
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        anyhow::ensure!(Instant::now() < deadline, "no game open for a burst");
        let game: Value = agent
            .get(format!("{base}/api/v1/games/current"))
            .call()?
            .body_mut()
            .read_json()?;
        let (Some(number), Some(closes)) = (game["number"].as_i64(), game["closes_at"].as_str())
        else {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        let closes = chrono::DateTime::parse_from_rfc3339(closes)?.with_timezone(&chrono::Utc);
        let left = (closes - chrono::Utc::now()).to_std().unwrap_or_default();
        if left > RUSH + Duration::from_millis(200) {
            let closes_at = Instant::now() + left;
            std::thread::sleep(left - RUSH);
            return Ok((number, closes_at));
        }
        // Too late for this one: the next.
        std::thread::sleep(left + Duration::from_millis(300));
    }
}

/// One terminal selling as fast as it can until `until`.
fn terminal(url: &str, token: &str, prefix: &str, game: i64, until: Instant) -> Tally {
    let agent = new_agent();
    let mut tally = Tally::default();
    let mut i = 0u64;
    while Instant::now() < until {
        i += 1;
        let sent = Instant::now();
        let (status, answer) = sell(&agent, url, token, &sale(format!("{prefix}-{i}"), i));
        match (status, answer.first_game, answer.error.as_deref()) {
            (201, Some(first), _) if first == game => tally
                .in_game
                .push((sent.elapsed().as_micros() as u64, Instant::now())),
            (201, Some(_), _) => tally.sent_on += 1,
            (409, _, Some("game_closed")) => tally.refused_for_close += 1,
            _ => tally.failed.push(format!(
                "{status} {} {}",
                answer.error.unwrap_or_default(),
                answer.message.unwrap_or_default()
            )),
        }
    }
    tally
}

fn report(game: i64, closes_at: Instant, started: Instant, all: &mut Tally) {
    let last = all.in_game.iter().map(|(_, at)| *at).max();
    let mut latencies: Vec<u64> = all.in_game.iter().map(|(l, _)| *l).collect();
    latencies.sort_unstable();
    let pct = |p: f64| percentile_ms(&latencies, p);
    let rush = closes_at.saturating_duration_since(started).as_secs_f64();
    println!(
        "burst: game {game}'s last {rush:.1} s: {} sold into it ({:.0} tickets/s; latency p50 \
         {:.2} ms, p99 {:.2} ms, max {:.2} ms), the last answered {}; {} sent on to a later \
         game; {} refused for the close (game_closed); {} failed",
        latencies.len(),
        latencies.len() as f64 / rush.max(0.001),
        pct(0.50),
        pct(0.99),
        latencies.last().copied().unwrap_or(0) as f64 / 1000.0,
        match last {
            Some(at) if at <= closes_at => {
                format!(
                    "{:.0} ms before the close",
                    (closes_at - at).as_secs_f64() * 1000.0
                )
            }
            Some(at) => format!(
                "{:.0} ms after the close",
                (at - closes_at).as_secs_f64() * 1000.0
            ),
            None => "never".into(),
        },
        all.sent_on,
        all.refused_for_close,
        all.failed.len()
    );
    for f in all.failed.iter().take(5) {
        println!("  failed: {f}");
    }
}
