//! How many event streams are open, per address and in all (issue 22): each display holds one
//! connection for as long as it runs, so an unlimited number let one client (or a careless
//! one) open tens of thousands and slow every sale. A stream past either cap is refused with
//! 503 and a `Retry-After`; a slot is given back when its stream ends.
//!
//! Registered displays come first (issue 31): idle anonymous streams from a handful of
//! addresses once filled the caps and shut a venue's board out. A registered display's stream
//! is never refused: it is not counted against the caps, and each display holds at most
//! [`PER_DISPLAY`] streams, so their number is bounded by the displays a supervisor
//! registered. Anonymous streams share what is left of `--event-streams` once the displays'
//! streams are counted.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// Streams one registered display may hold at once. Two, not one: a board reloaded opens its
/// new stream before the server has noticed the old connection gone (up to two keep-alives).
/// One more replaces the display's oldest, so a display is never refused.
pub const PER_DISPLAY: usize = 2;

/// The caps (`serve --event-streams`, `--event-streams-per-address`) and what is open.
pub struct StreamSlots {
    total: usize,
    per_address: usize,
    open: Mutex<Open>,
    /// Set as the server stops: every stream ends, so a graceful stop does not wait on them.
    stopping: tokio::sync::watch::Sender<bool>,
}

#[derive(Default)]
struct Open {
    /// Anonymous streams.
    total: usize,
    by_address: HashMap<Option<IpAddr>, usize>,
    /// Each registered display's streams, oldest first, each with the means to end it.
    displays: HashMap<String, VecDeque<Held>>,
    display_streams: usize,
    next_id: u64,
}

struct Held {
    id: u64,
    end: oneshot::Sender<()>,
}

/// Which cap a refused stream met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    Address,
    Total,
}

/// Whose place a slot is.
enum Whose {
    Anonymous(Option<IpAddr>),
    Display { key: String, id: u64 },
}

/// An open stream's place, given back when dropped (the client gone, the stream ended).
pub struct Slot {
    slots: Arc<StreamSlots>,
    whose: Whose,
    /// Fires when a newer stream of the same display takes this one's place.
    replaced: Option<oneshot::Receiver<()>>,
    stopping: tokio::sync::watch::Receiver<bool>,
}

impl StreamSlots {
    pub fn new(total: usize, per_address: usize) -> Arc<StreamSlots> {
        Arc::new(StreamSlots {
            total,
            per_address,
            open: Mutex::new(Open::default()),
            stopping: tokio::sync::watch::Sender::new(false),
        })
    }

    /// The server is stopping: every stream ends now, and none opens after (a display
    /// reconnects to another instance, or to this one when it is back).
    pub fn stop_all(&self) {
        self.stopping.send_replace(true);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for an anonymous stream from `address`, unless a cap is met: the address's, or
    /// the server's less what the registered displays hold.
    pub fn take(self: &Arc<Self>, address: Option<IpAddr>) -> Result<Slot, Full> {
        let mut open = self.lock();
        let mine = open.by_address.get(&address).copied().unwrap_or(0);
        if mine >= self.per_address {
            return Err(Full::Address);
        }
        if open.total + open.display_streams >= self.total {
            return Err(Full::Total);
        }
        open.total += 1;
        *open.by_address.entry(address).or_default() += 1;
        Ok(Slot {
            slots: self.clone(),
            whose: Whose::Anonymous(address),
            replaced: None,
            stopping: self.stopping.subscribe(),
        })
    }

    /// A place for a stream of the registered display `key`, always: past [`PER_DISPLAY`] the
    /// display's oldest stream is ended to make room.
    pub fn take_display(self: &Arc<Self>, key: &str) -> Slot {
        let mut open = self.lock();
        open.next_id += 1;
        let id = open.next_id;
        let (end, replaced) = oneshot::channel();
        let held = open.displays.entry(key.to_string()).or_default();
        let oldest = (held.len() >= PER_DISPLAY)
            .then(|| held.pop_front())
            .flatten();
        held.push_back(Held { id, end });
        if let Some(oldest) = oldest {
            // Its stream may be gone already; its slot then gives nothing back twice.
            let _ = oldest.end.send(());
        } else {
            open.display_streams += 1;
        }
        Slot {
            slots: self.clone(),
            whose: Whose::Display {
                key: key.to_string(),
                id,
            },
            replaced: Some(replaced),
            stopping: self.stopping.subscribe(),
        }
    }

    /// Streams open now: anonymous, and registered displays'.
    #[cfg(test)]
    fn open(&self) -> (usize, usize) {
        let open = self.lock();
        (open.total, open.display_streams)
    }
}

impl Slot {
    /// Waits until the stream must end: a newer stream of the same display has taken this
    /// one's place (never, for an anonymous stream), or the server is stopping.
    pub async fn ended(&mut self) {
        let replaced = async {
            match self.replaced.as_mut() {
                Some(replaced) => {
                    let _ = replaced.await;
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = replaced => {}
            _ = self.stopping.wait_for(|stopping| *stopping) => {}
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.lock();
        match &self.whose {
            Whose::Anonymous(address) => {
                open.total = open.total.saturating_sub(1);
                if let Some(n) = open.by_address.get_mut(address) {
                    *n -= 1;
                    if *n == 0 {
                        open.by_address.remove(address);
                    }
                }
            }
            Whose::Display { key, id } => {
                let Some(held) = open.displays.get_mut(key) else {
                    return;
                };
                // A stream replaced was taken off the list (and its place handed on) then.
                let Some(at) = held.iter().position(|h| h.id == *id) else {
                    return;
                };
                held.remove(at);
                if held.is_empty() {
                    open.displays.remove(key);
                }
                open.display_streams = open.display_streams.saturating_sub(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    #[test]
    fn each_cap_holds_and_a_slot_comes_back_when_its_stream_ends() {
        let slots = StreamSlots::new(3, 2);
        let (a, b) = (ip("10.0.0.1"), ip("10.0.0.2"));
        let first = slots.take(a).unwrap();
        let _second = slots.take(a).unwrap();
        assert_eq!(slots.take(a).err(), Some(Full::Address));
        let _third = slots.take(b).unwrap();
        assert_eq!(slots.take(b).err(), Some(Full::Total));
        assert_eq!(slots.open(), (3, 0));
        drop(first);
        assert_eq!(slots.open(), (2, 0));
        assert!(slots.take(a).is_ok());
    }

    #[test]
    fn a_registered_display_gets_a_stream_when_the_anonymous_caps_are_full() {
        let slots = StreamSlots::new(2, 1);
        let (a, b, c) = (ip("10.0.0.1"), ip("10.0.0.2"), ip("10.0.0.3"));
        let _held = [slots.take(a).unwrap(), slots.take(b).unwrap()];
        assert_eq!(slots.take(c).err(), Some(Full::Total));
        assert_eq!(slots.take(a).err(), Some(Full::Address));
        let board = slots.take_display("735624/bar");
        let other = slots.take_display("735624/lounge");
        assert_eq!(slots.open(), (2, 2));
        assert_eq!(slots.take(c).err(), Some(Full::Total));
        drop((board, other));
        assert_eq!(slots.open(), (2, 0));
    }

    #[test]
    fn anonymous_streams_share_what_the_displays_leave() {
        let slots = StreamSlots::new(3, 3);
        let a = ip("10.0.0.1");
        let board = slots.take_display("735624/bar");
        let _one = slots.take(a).unwrap();
        let _two = slots.take(a).unwrap();
        assert_eq!(
            slots.take(a).err(),
            Some(Full::Total),
            "one of 3 is the board's"
        );
        drop(board);
        assert!(
            slots.take(a).is_ok(),
            "the board gone, its place is anyone's"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn every_stream_ends_as_the_server_stops() {
        let slots = StreamSlots::new(10, 10);
        let mut anonymous = slots.take(None).unwrap();
        let mut display = slots.take_display("735624/bar");
        let still = tokio::time::timeout(std::time::Duration::from_millis(20), anonymous.ended());
        assert!(still.await.is_err(), "an anonymous stream runs on");
        slots.stop_all();
        for slot in [&mut anonymous, &mut display] {
            tokio::time::timeout(std::time::Duration::from_secs(1), slot.ended())
                .await
                .expect("told to end as the server stops");
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_displays_stream_past_its_share_replaces_its_oldest() {
        let slots = StreamSlots::new(10, 10);
        let mut first = slots.take_display("735624/bar");
        let mut second = slots.take_display("735624/bar");
        let _elsewhere = slots.take_display("735624/lounge");
        assert_eq!(slots.open(), (0, 3));
        let third = slots.take_display("735624/bar");
        assert_eq!(
            slots.open(),
            (0, 3),
            "the oldest's place went to the newest"
        );
        tokio::time::timeout(std::time::Duration::from_secs(1), first.ended())
            .await
            .expect("the oldest stream is told to end");
        let still = tokio::time::timeout(std::time::Duration::from_millis(20), second.ended());
        assert!(still.await.is_err(), "the second is not replaced");
        // The replaced stream ending gives back nothing: its place is the newest's.
        drop(first);
        assert_eq!(slots.open(), (0, 3));
        drop((second, third));
        assert_eq!(slots.open(), (0, 1));
    }
}
