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
}
