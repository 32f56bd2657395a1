//! Each game and its draw against the trail, both ways.
//!
//! A game is as opened (its Keno Day, source, rule set and times), closed when it says it was,
//! and in a state its entries allow: settled or invalidated only with the entry that made it so
//! (rules 11, 17.3), and an entry of either only for a game in that state. Its draw is replayed
//! from the trail, entry by entry: each ball drawn (`number_drawn`), each fault's balls taken
//! out (`draw_fault` records the numbers standing after it: rules 10.2, 10.4), each correction
//! applied (rule 10.1); the standing numbers and the voided balls must then be exactly the
//! stored ones. A number changed, added or removed behind the server's back, even before its
//! game was settled on it, is a difference.

use std::collections::{BTreeMap, BTreeSet};

use diesel::prelude::*;
use serde_json::Value;

use super::chain::Trail;
use super::since::GAME_KINDS as KINDS;
use super::{Report, PAGE};
use crate::audit::kind::EntryKind;
use crate::db::schema::{audit_log, drawn_numbers, game_invalidations, games, voided_balls};
use crate::db::DbConnection;
use keno_core::GameState;

/// What the trail says of one game.
#[derive(Default)]
pub struct GameTrail {
    pub opened: Option<Value>,
    pub closed_at: Option<Value>,
    pub settled: bool,
    pub invalidated: bool,
    pub draw: Draw,
}

/// A ball standing in the draw.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ball {
    attempt: i32,
    number: i32,
    drawn_at: i64,
    entered_by: Option<String>,
}

/// A ball a fault took out of the record.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Voided {
    attempt: i32,
    number: i32,
    position: i32,
    drawn_at: i64,
    entered_by: Option<String>,
    fault: i64,
}

/// A game's draw as its entries leave it.
#[derive(Default)]
pub struct Draw {
    standing: Vec<Ball>,
    voided: BTreeSet<Voided>,
}

/// One entry of the trail that concerns a game.
pub struct GameEntry<'a> {
    pub seq: i64,
    pub kind: EntryKind,
    pub game: i64,
    pub principal: Option<&'a str>,
    pub payload: &'a Value,
}

/// Applies `e` to its game; `false` if it is not a game's entry.
pub fn replay(games: &mut BTreeMap<i64, GameTrail>, e: GameEntry, report: &mut Report) -> bool {
    let game = games.entry(e.game).or_default();
    let p = e.payload;
    match e.kind {
        EntryKind::GameOpened => {
            if game.opened.replace(p.clone()).is_some() {
                report.differ(format!(
                    "game {} is opened twice in the audit trail",
                    e.game
                ));
            }
        }
        EntryKind::GameClosed => game.closed_at = Some(p["closed_at"].clone()),
        EntryKind::GameSettled => game.settled = true,
        EntryKind::GameInvalidated => game.invalidated = true,
        EntryKind::NumberDrawn => game.draw.drawn(&e, report),
        EntryKind::DrawFault => game.draw.fault(&e, report),
        EntryKind::CorrectionApplied => game.draw.corrected(&e, report),
        _ => return false,
    }
    true
}

/// A number of an entry's payload that must be there; a missing one reads as -1, which then
/// differs from every stored record.
fn int(p: &Value, key: &str) -> i64 {
    p[key].as_i64().unwrap_or(-1)
}

impl Draw {
    fn drawn(&mut self, e: &GameEntry, report: &mut Report) {
        let position = int(e.payload, "position");
        if position != self.standing.len() as i64 + 1 {
            report.differ(format!(
                "audit entry {} draws game {}'s ball {position} after {} standing",
                e.seq,
                e.game,
                self.standing.len()
            ));
        }
        self.standing.push(Ball {
            attempt: int(e.payload, "attempt") as i32,
            number: int(e.payload, "number") as i32,
            drawn_at: int(e.payload, "drawn_at"),
            entered_by: e.principal.map(str::to_string),
        });
    }

    /// A fault's balls leave the record: those not among the numbers standing after it, each
    /// with the place it held (rules 10.2, 10.4).
    fn fault(&mut self, e: &GameEntry, report: &mut Report) {
        // An entry that names no numbers standing after it vouches for no voided ball.
        let Some(after) = e.payload["drawn_after"].as_array() else {
            return report.differ(format!(
                "audit entry {} (a fault of game {}) names no numbers standing after it",
                e.seq, e.game
            ));
        };
        let after: Vec<i32> = after
            .iter()
            .map(|n| n.as_i64().unwrap_or(-1) as i32)
            .collect();
        let fault = int(e.payload, "fault");
        let (kept, out): (Vec<_>, Vec<_>) = std::mem::take(&mut self.standing)
            .into_iter()
            .enumerate()
            .partition(|(_, b)| after.contains(&b.number));
        for (i, b) in out {
            self.voided.insert(Voided {
                attempt: b.attempt,
                number: b.number,
                position: i as i32 + 1,
                drawn_at: b.drawn_at,
                entered_by: b.entered_by,
                fault,
            });
        }
        self.standing = kept.into_iter().map(|(_, b)| b).collect();
        let standing: Vec<i32> = self.standing.iter().map(|b| b.number).collect();
        if standing != after {
            report.differ(format!(
                "audit entry {} (fault {fault} of game {}) leaves {after:?} standing, but the \
                 balls drawn before it were {standing:?}",
                e.seq, e.game
            ));
        }
    }

    fn corrected(&mut self, e: &GameEntry, report: &mut Report) {
        let (position, old) = (int(e.payload, "position"), int(e.payload, "old_number"));
        let ball = usize::try_from(position - 1)
            .ok()
            .and_then(|i| self.standing.get_mut(i));
        match ball {
            Some(b) if i64::from(b.number) == old => b.number = int(e.payload, "new_number") as i32,
            _ => report.differ(format!(
                "audit entry {} corrects game {}'s ball {position} from {old}, which was not \
                 drawn there",
                e.seq, e.game
            )),
        }
    }
}

/// Every game against the trail, a page of games at a time: memory holds one page of games,
/// their entries and their balls, whatever the history.
/// From a checkpoint, the games from the lowest its later entries name, and the table's count
/// against the trail's openings.
pub fn check(conn: &mut DbConnection, trail: &Trail, report: &mut Report) -> anyhow::Result<()> {
    let (mut after, mut seen, mut draws) = (trail.games_after(), 0i64, 0usize);
    loop {
        let rows: Vec<crate::games::GameRow> = games::table
            .filter(games::number.gt(after))
            .order(games::number)
            .limit(PAGE)
            .select(crate::games::GameRow::as_select())
            .load(conn)?;
        let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
            break;
        };
        let span = (first.number, last.number);
        after = span.1;
        let recorded = recorded(conn, &rows, report)?;
        let invalidations: BTreeSet<i64> = game_invalidations::table
            .filter(game_invalidations::game.between(span.0, span.1))
            .select(game_invalidations::game)
            .load::<i64>(conn)?
            .into_iter()
            .collect();
        let mut standing = stored_standing(conn, span)?;
        let mut voided = stored_voided(conn, span)?;
        let none = GameTrail::default();
        for row in &rows {
            let game = recorded.get(&row.number).unwrap_or(&none);
            seen += i64::from(game.opened.is_some());
            as_opened(row, game, report);
            in_its_state(row, game, invalidations.contains(&row.number), report);
            let stored = standing.remove(&row.number).unwrap_or_default();
            let out = voided.remove(&row.number).unwrap_or_default();
            draws += usize::from(!stored.is_empty() || !game.draw.standing.is_empty());
            as_drawn(row.number, &game.draw, &stored, &out, report);
        }
    }
    if trail.since.is_some() {
        seen = games::table.count().get_result(conn)?;
        if let Some(recorded) = super::since::counted(conn, seen, EntryKind::GameOpened)? {
            report.differ(format!(
                "the games table holds {seen} games but the trail opens {recorded}: a game was \
                 added or removed"
            ));
        }
    }
    opened_but_not_stored(conn, seen, report)?;
    report.checked(format!(
        "games as opened, closed and decided, and {draws} draws ball by ball"
    ));
    Ok(())
}

/// The trail's entries of a page of games, replayed game by game.
fn recorded(
    conn: &mut DbConnection,
    rows: &[crate::games::GameRow],
    report: &mut Report,
) -> anyhow::Result<BTreeMap<i64, GameTrail>> {
    let subjects: Vec<String> = rows.iter().map(|r| r.number.to_string()).collect();
    type Row = (i64, String, String, Option<String>, String);
    let entries: Vec<Row> = audit_log::table
        .filter(audit_log::kind.eq_any(KINDS.map(EntryKind::as_str)))
        .filter(audit_log::subject.eq_any(&subjects))
        .order(audit_log::seq)
        .select((
            audit_log::seq,
            audit_log::kind,
            audit_log::subject,
            audit_log::principal_id,
            audit_log::payload,
        ))
        .load(conn)?;
    let mut games = BTreeMap::new();
    for (seq, kind, subject, principal, payload) in entries {
        // Unreadable payloads were reported by the chain's reading: they vouch for nothing.
        let Ok(payload) = serde_json::from_str::<Value>(&payload) else {
            continue;
        };
        let kind = EntryKind::parse(&kind).ok_or_else(|| {
            anyhow::anyhow!("audit entry {seq}: a kind no server writes: {kind:?}")
        })?;
        let entry = GameEntry {
            seq,
            kind,
            game: subject.parse()?,
            principal: principal.as_deref(),
            payload: &payload,
        };
        replay(&mut games, entry, report);
    }
    Ok(games)
}

/// Each game the trail opened that is not in the games table, looked for only when the count
/// of openings differs from the games found opened.
fn opened_but_not_stored(
    conn: &mut DbConnection,
    seen: i64,
    report: &mut Report,
) -> anyhow::Result<()> {
    let count: i64 = audit_log::table
        .filter(audit_log::kind.eq(EntryKind::GameOpened.as_str()))
        .count()
        .get_result(conn)?;
    if count == seen {
        return Ok(());
    }
    let opened: Vec<(i64, String)> = audit_log::table
        .filter(audit_log::kind.eq(EntryKind::GameOpened.as_str()))
        .select((audit_log::seq, audit_log::subject))
        .load(conn)?;
    let stored: BTreeSet<String> = games::table
        .select(games::number)
        .load::<i64>(conn)?
        .into_iter()
        .map(|n| n.to_string())
        .collect();
    for (seq, game) in opened {
        if !stored.contains(&game) {
            report.differ(format!(
                "audit entry {seq} opens game {game}, which is not in the games table"
            ));
        }
    }
    Ok(())
}

/// The game's row against its `game_opened` and `game_closed` entries.
fn as_opened(row: &crate::games::GameRow, recorded: &GameTrail, report: &mut Report) {
    let n = row.number;
    let Some(opened) = &recorded.opened else {
        return report.differ(format!("game {n} was never opened in the audit trail"));
    };
    let same = opened["keno_day"] == row.keno_day.as_str()
        && opened["source"] == row.source.as_str()
        && opened["rule_set"] == row.rule_set.as_str()
        && opened["opened_at"] == row.opened_at
        && opened["closes_at"] == row.closes_at;
    if !same {
        report.differ(format!("game {n} differs from the game opened"));
    }
    let closed = recorded.closed_at.as_ref();
    match (row.closed_at, closed) {
        (None, None) => {}
        (Some(at), Some(entry)) if *entry == at => {}
        _ => report.differ(format!(
            "game {n}: closed at {:?} but the trail says {:?}",
            row.closed_at, closed
        )),
    }
}

/// The game's state against the entries that decide it: settled (rule 11) and invalidated
/// (rule 17.3) each with its entry, and each entry with its state.
fn in_its_state(
    row: &crate::games::GameRow,
    recorded: &GameTrail,
    invalidation: bool,
    report: &mut Report,
) {
    let n = row.number;
    let settled = row.state == GameState::Settled;
    if settled != recorded.settled {
        report.differ(format!(
            "game {n} is {} but the trail {} its settlement",
            row.state.as_str(),
            if settled { "has not" } else { "has" }
        ));
    }
    let invalidated = row.state == GameState::Invalidated;
    if invalidated != recorded.invalidated || invalidated != invalidation {
        report.differ(format!(
            "game {n} is {}: its invalidation is {} in the trail and {} in the record",
            row.state.as_str(),
            if recorded.invalidated {
                "present"
            } else {
                "absent"
            },
            if invalidation { "present" } else { "absent" }
        ));
    }
}

/// The stored draw against the one replayed from the trail.
fn as_drawn(game: i64, draw: &Draw, stored: &[Ball], out: &BTreeSet<Voided>, report: &mut Report) {
    for (i, (s, t)) in stored.iter().zip(&draw.standing).enumerate() {
        if s != t {
            report.differ(format!(
                "game {game}: ball {} is {} as stored, {} in the trail",
                i + 1,
                s.number,
                t.number
            ));
        }
    }
    if stored.len() != draw.standing.len() {
        report.differ(format!(
            "game {game}: {} balls stand in the record, {} in the trail",
            stored.len(),
            draw.standing.len()
        ));
    }
    if *out != draw.voided {
        report.differ(format!(
            "game {game}: the voided balls differ from those the trail's faults took out"
        ));
    }
}

type DrawnRow = (i64, i32, i32, i64, Option<String>);

/// The standing balls of games `span`, in their places. The attempt is the game's current one.
fn stored_standing(
    conn: &mut DbConnection,
    span: (i64, i64),
) -> QueryResult<BTreeMap<i64, Vec<Ball>>> {
    let attempts: BTreeMap<i64, i32> = games::table
        .filter(games::number.between(span.0, span.1))
        .select((games::number, games::draw_attempt))
        .load::<(i64, i32)>(conn)?
        .into_iter()
        .collect();
    let rows: Vec<DrawnRow> = drawn_numbers::table
        .filter(drawn_numbers::game.between(span.0, span.1))
        .order((drawn_numbers::game, drawn_numbers::position))
        .select((
            drawn_numbers::game,
            drawn_numbers::position,
            drawn_numbers::number,
            drawn_numbers::drawn_at,
            drawn_numbers::entered_by,
        ))
        .load(conn)?;
    let mut out: BTreeMap<i64, Vec<Ball>> = BTreeMap::new();
    for (game, position, number, drawn_at, entered_by) in rows {
        let balls = out.entry(game).or_default();
        // A gap in the places reads as a ball that is not there: it then differs.
        while balls.len() + 1 < position as usize {
            balls.push(Ball {
                attempt: -1,
                number: -1,
                drawn_at: -1,
                entered_by: None,
            });
        }
        balls.push(Ball {
            attempt: attempts.get(&game).copied().unwrap_or(-1),
            number,
            drawn_at,
            entered_by,
        });
    }
    Ok(out)
}

type VoidedRow = (i64, i32, i32, i32, i64, Option<String>, i64);

fn stored_voided(
    conn: &mut DbConnection,
    span: (i64, i64),
) -> QueryResult<BTreeMap<i64, BTreeSet<Voided>>> {
    let rows: Vec<VoidedRow> = voided_balls::table
        .filter(voided_balls::game.between(span.0, span.1))
        .select((
            voided_balls::game,
            voided_balls::attempt,
            voided_balls::number,
            voided_balls::position,
            voided_balls::drawn_at,
            voided_balls::entered_by,
            voided_balls::fault_id,
        ))
        .load(conn)?;
    let mut out: BTreeMap<i64, BTreeSet<Voided>> = BTreeMap::new();
    for (game, attempt, number, position, drawn_at, entered_by, fault) in rows {
        out.entry(game).or_default().insert(Voided {
            attempt,
            number,
            position,
            drawn_at,
            entered_by,
            fault,
        });
    }
    Ok(out)
}
