//! How many event streams are open, per address and in all (issue 22): each display holds one
//! connection for as long as it runs, so an unlimited number let one client (or a careless
//! one) open tens of thousands and slow every sale. A stream past either cap is refused with
//! 503 and a `Retry-After`; a slot is given back when its stream ends.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The caps (`serve --event-streams`, `--event-streams-per-address`) and what is open.
pub struct StreamSlots {
    total: usize,
    per_address: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_address: HashMap<Option<IpAddr>, usize>,
}

/// Which cap a refused stream met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    Address,
    Total,
}

/// An open stream's place, given back when dropped (the client gone, the stream ended).
pub struct Slot {
    slots: Arc<StreamSlots>,
    address: Option<IpAddr>,
}

impl StreamSlots {
    pub fn new(total: usize, per_address: usize) -> Arc<StreamSlots> {
        Arc::new(StreamSlots {
            total,
            per_address,
            open: Mutex::new(Open::default()),
        })
    }

    /// A place for a stream from `address`, unless a cap is met.
    pub fn take(self: &Arc<Self>, address: Option<IpAddr>) -> Result<Slot, Full> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let mine = open.by_address.get(&address).copied().unwrap_or(0);
        if mine >= self.per_address {
            return Err(Full::Address);
        }
        if open.total >= self.total {
            return Err(Full::Total);
        }
        open.total += 1;
        *open.by_address.entry(address).or_default() += 1;
        Ok(Slot {
            slots: self.clone(),
            address,
        })
    }

    /// Streams open now, in all.
    #[cfg(test)]
    fn open(&self) -> usize {
        self.open.lock().unwrap_or_else(|p| p.into_inner()).total
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|p| p.into_inner());
        open.total = open.total.saturating_sub(1);
        if let Some(n) = open.by_address.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                open.by_address.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cap_holds_and_a_slot_comes_back_when_its_stream_ends() {
        let slots = StreamSlots::new(3, 2);
        let a: Option<IpAddr> = Some("10.0.0.1".parse().unwrap());
        let b: Option<IpAddr> = Some("10.0.0.2".parse().unwrap());
        let first = slots.take(a).unwrap();
        let _second = slots.take(a).unwrap();
        assert_eq!(slots.take(a).err(), Some(Full::Address));
        let _third = slots.take(b).unwrap();
        assert_eq!(slots.take(b).err(), Some(Full::Total));
        assert_eq!(slots.open(), 3);
        drop(first);
        assert_eq!(slots.open(), 2);
        assert!(slots.take(a).is_ok());
    }
}
