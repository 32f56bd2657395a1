//! The events of the stream `GET /api/v1/events` (Server-Sent Events), each announced after
//! the record it speaks of is committed (rule 10.1). With several server instances the same
//! names travel through PostgreSQL's `pg_notify`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! event_kinds {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, )*) => {
        /// An event's name (the SSE `event:` line).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EventKind {
            $( $(#[$doc])* $variant, )*
        }

        impl EventKind {
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(EventKind::$variant => $name,)*
                }
            }

            pub fn parse(name: &str) -> Option<EventKind> {
                match name {
                    $($name => Some(EventKind::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

event_kinds! {
    /// A game opened for sale: [`GameOpened`].
    GameOpened = "game_opened",
    /// A game closed for sale (rule 9.4): [`GameClosed`].
    GameClosed = "game_closed",
    /// A number (or ball) of the draw committed (rules 9.3, 10.1): [`NumberDrawn`].
    NumberDrawn = "number_drawn",
    /// The 20th number committed: [`GameDrawn`].
    GameDrawn = "game_drawn",
    /// The game settled: its totals.
    GameSettled = "game_settled",
    /// The jackpot pools as the displays show them.
    JackpotChanged = "jackpot_changed",
    /// A game invalidated (rule 17.3).
    GameInvalidated = "game_invalidated",
    /// A fault of a ball draw recorded (rule 10).
    DrawFault = "draw_fault",
    /// A number of a ball draw corrected with both approvals (rule 10.1).
    NumberCorrected = "number_corrected",
    /// A ball device returned to service.
    DeviceReturned = "device_returned",
    /// The prize schedules on sale changed (Special 3 approved or withdrawn).
    SchedulesChanged = "schedules_changed",
    /// The set-bet catalogue changed.
    SetBetsChanged = "set_bets_changed",
    /// Keno closes early (rule 16.2), or a closure was withdrawn: [`KenoClosure`].
    KenoClosure = "keno_closure",
    /// A draw monitoring test began to fail: [`DrawMonitorAlarm`].
    DrawMonitorAlarm = "draw_monitor_alarm",
    /// The system was suspended or resumed (issue 33): [`SuspensionChanged`].
    SuspensionChanged = "suspension_changed",
    /// Events may have been missed (the relay reconnected, or one was too large to relay):
    /// a client reads the state again.
    Resync = "resync",
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        EventKind::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown event {name:?}")))
    }
}

/// `game_opened`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOpened {
    pub game: i64,
    /// The Keno Day (YYYY-MM-DD, rule 1(d)).
    pub keno_day: String,
    /// RFC 3339.
    pub closes_at: String,
}

/// `game_closed`: `closed_at` is absent when the close is announced again after a restart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameClosed {
    pub game: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<String>,
}

/// `number_drawn`: the number at `position` (1 to 20) of the game's current draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberDrawn {
    pub game: i64,
    pub position: usize,
    pub number: u8,
}

/// `game_drawn`: the 20 numbers in drawn order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameDrawn {
    pub game: i64,
    pub drawn: Vec<u8>,
}

/// `game_settled`: what settling the game came to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSettled {
    pub game: i64,
    pub tickets: usize,
    pub ways: usize,
    pub winning_tickets: usize,
    pub total_prizes_cents: u64,
    pub prorated: bool,
    pub jackpot_winners: usize,
}

/// `game_invalidated` (rule 17.3): every wager on it refunded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameInvalidated {
    pub game: i64,
    pub reason: String,
    pub refunded_cents: i64,
}

/// `draw_fault` (rule 10): the fault and the game's draw as it stands after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawFault {
    pub game: i64,
    pub fault: i64,
    pub kind: String,
    pub number: Option<i32>,
    pub reason: String,
    /// The game's state after the fault.
    pub state: String,
    pub draw_attempt: i32,
    pub draw_mode: String,
    /// The standing numbers of the current draw, in drawn order.
    pub drawn: Vec<u8>,
}

/// `number_corrected` (rule 10.1): the number at `position` is now `number`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberCorrected {
    pub game: i64,
    pub position: i32,
    pub old_number: i32,
    pub number: i32,
}

/// `device_returned`: a ball device back in service (rule 10.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceReturned {
    pub device: String,
    pub name: String,
}

/// `suspension_changed`: whether the system stands suspended now, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuspensionChanged {
    pub suspended: bool,
    /// What players and staff read (empty when resumed).
    pub message: String,
}

/// `schedules_changed`: the schedules on sale changed; `special3` when Special 3's approval did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulesChanged {
    pub special3: bool,
}

/// `set_bets_changed`: set `id` was added or retired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetBetsChanged {
    pub id: i64,
}

/// `keno_closure` (rule 16.2): a closure of Keno scheduled (the notice every display and
/// counter shows from now), or withdrawn (`withdrawn`: the notice is taken down).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KenoClosure {
    pub id: i64,
    /// The Keno Day it closes (YYYY-MM-DD).
    pub keno_day: String,
    /// RFC 3339.
    pub closes_at: String,
    /// hh:mm on the venue's clock, as the notice shows it: `KENO CLOSES AT hh:mm`.
    pub closes_at_local: String,
    pub withdrawn: bool,
}

/// `draw_monitor_alarm`: a test of a group's last games settled went from passing to failing
/// at 99.9% confidence with game `game` (`GET /api/v1/draw-monitoring` shows the group).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrawMonitorAlarm {
    pub game: i64,
    pub source: crate::monitoring::MonitoredSource,
    pub device: Option<String>,
    pub test: crate::monitoring::MonitorTest,
    pub statistic: f64,
    pub degrees_of_freedom: u32,
    pub p_value: f64,
    /// Games the test looked at (`first_game` to `game`), at most `window`.
    pub games: u64,
    pub first_game: i64,
    pub window: u64,
}

/// `resync`: why a client should read the state again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resync {
    pub reason: String,
}

/// An event and its payload, as the server publishes it: the payload's type follows from the
/// event, so no event goes out with another's shape. On the wire the name is the SSE `event:`
/// line and the payload the `data:` line.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Event {
    GameOpened(GameOpened),
    GameClosed(GameClosed),
    NumberDrawn(NumberDrawn),
    GameDrawn(GameDrawn),
    GameSettled(GameSettled),
    /// The pools as `GET /api/v1/jackpots` lists them.
    JackpotChanged(Vec<crate::games::Jackpot>),
    GameInvalidated(GameInvalidated),
    DrawFault(DrawFault),
    NumberCorrected(NumberCorrected),
    DeviceReturned(DeviceReturned),
    SchedulesChanged(SchedulesChanged),
    SetBetsChanged(SetBetsChanged),
    KenoClosure(KenoClosure),
    DrawMonitorAlarm(DrawMonitorAlarm),
    SuspensionChanged(SuspensionChanged),
    Resync(Resync),
}

impl Event {
    pub fn kind(&self) -> EventKind {
        match self {
            Event::GameOpened(_) => EventKind::GameOpened,
            Event::GameClosed(_) => EventKind::GameClosed,
            Event::NumberDrawn(_) => EventKind::NumberDrawn,
            Event::GameDrawn(_) => EventKind::GameDrawn,
            Event::GameSettled(_) => EventKind::GameSettled,
            Event::JackpotChanged(_) => EventKind::JackpotChanged,
            Event::GameInvalidated(_) => EventKind::GameInvalidated,
            Event::DrawFault(_) => EventKind::DrawFault,
            Event::NumberCorrected(_) => EventKind::NumberCorrected,
            Event::DeviceReturned(_) => EventKind::DeviceReturned,
            Event::SchedulesChanged(_) => EventKind::SchedulesChanged,
            Event::SetBetsChanged(_) => EventKind::SetBetsChanged,
            Event::KenoClosure(_) => EventKind::KenoClosure,
            Event::DrawMonitorAlarm(_) => EventKind::DrawMonitorAlarm,
            Event::SuspensionChanged(_) => EventKind::SuspensionChanged,
            Event::Resync(_) => EventKind::Resync,
        }
    }

    /// The event named `kind` with the payload `data`, as a client reads it off the stream.
    pub fn read(kind: EventKind, data: &str) -> serde_json::Result<Event> {
        use serde_json::from_str as payload;
        Ok(match kind {
            EventKind::GameOpened => Event::GameOpened(payload(data)?),
            EventKind::GameClosed => Event::GameClosed(payload(data)?),
            EventKind::NumberDrawn => Event::NumberDrawn(payload(data)?),
            EventKind::GameDrawn => Event::GameDrawn(payload(data)?),
            EventKind::GameSettled => Event::GameSettled(payload(data)?),
            EventKind::JackpotChanged => Event::JackpotChanged(payload(data)?),
            EventKind::GameInvalidated => Event::GameInvalidated(payload(data)?),
            EventKind::DrawFault => Event::DrawFault(payload(data)?),
            EventKind::NumberCorrected => Event::NumberCorrected(payload(data)?),
            EventKind::DeviceReturned => Event::DeviceReturned(payload(data)?),
            EventKind::SchedulesChanged => Event::SchedulesChanged(payload(data)?),
            EventKind::SetBetsChanged => Event::SetBetsChanged(payload(data)?),
            EventKind::KenoClosure => Event::KenoClosure(payload(data)?),
            EventKind::DrawMonitorAlarm => Event::DrawMonitorAlarm(payload(data)?),
            EventKind::SuspensionChanged => Event::SuspensionChanged(payload(data)?),
            EventKind::Resync => Event::Resync(payload(data)?),
        })
    }

    /// The payload, as the `data:` line carries it.
    pub fn data(&self) -> String {
        serde_json::to_string(self).expect("event payloads serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_read_back() {
        let mut seen = std::collections::BTreeSet::new();
        for k in EventKind::ALL {
            assert!(seen.insert(k.as_str()));
            assert_eq!(EventKind::parse(k.as_str()), Some(*k));
        }
    }

    #[test]
    fn payloads_keep_the_wire_shape() {
        let closed = GameClosed {
            game: 7,
            closed_at: None,
        };
        assert_eq!(serde_json::to_string(&closed).unwrap(), r#"{"game":7}"#);
        let n = NumberDrawn {
            game: 7,
            position: 3,
            number: 80,
        };
        assert_eq!(
            serde_json::to_string(&n).unwrap(),
            r#"{"game":7,"position":3,"number":80}"#
        );
    }

    #[test]
    fn each_event_names_its_kind_and_carries_only_its_payload() {
        let e = Event::NumberCorrected(NumberCorrected {
            game: 3,
            position: 5,
            old_number: 7,
            number: 8,
        });
        assert_eq!(e.kind(), EventKind::NumberCorrected);
        assert_eq!(
            e.data(),
            r#"{"game":3,"position":5,"old_number":7,"number":8}"#
        );
        let r = Event::Resync(Resync {
            reason: "event relay reconnected".into(),
        });
        assert_eq!(r.data(), r#"{"reason":"event relay reconnected"}"#);
        assert_eq!(Event::JackpotChanged(Vec::new()).data(), "[]");
        assert_eq!(Event::read(e.kind(), &e.data()).unwrap(), e);
        assert!(Event::read(EventKind::GameDrawn, r#"{"game":1}"#).is_err());
    }
}
