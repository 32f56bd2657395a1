//! One reading at a time for any number of callers, each answered from a reading begun after
//! it asked.
//!
//! For a public read whose cost grows with the data (the jackpot pools read every jackpot
//! ticket of the games not yet settled): however many strangers ask at once, the server runs
//! one reading at a time, and each caller waits for the first reading that begins after it
//! arrived and takes that one's answer. No caller is answered from before its own request, so
//! a sale's effect is read back at once, as from a reading of its own; and a flood of requests
//! costs one reading after another, never one per request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::Mutex;

/// One reading of `T` at a time (see the module's comment).
pub struct SingleFlight<T> {
    /// Readings begun so far.
    begun: AtomicU64,
    /// The last reading finished: its number (the value of `begun` once it began) and answer.
    /// Held for the whole of a reading, so readings take turns.
    last: Mutex<Option<(u64, Arc<T>)>>,
}

impl<T> Default for SingleFlight<T> {
    fn default() -> Self {
        SingleFlight {
            begun: AtomicU64::new(0),
            last: Mutex::new(None),
        }
    }
}

impl<T> SingleFlight<T> {
    /// The answer of a reading begun after this call: another caller's, if one began while
    /// this one waited its turn, else `read`, run now. A failed reading is not shared: each
    /// caller that waited for it reads in its own turn.
    pub async fn read<E, F, Fut>(&self, read: F) -> Result<Arc<T>, E>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<T, E>>,
    {
        let asked = self.begun.load(Ordering::SeqCst);
        let mut last = self.last.lock().await;
        if let Some((number, answer)) = &*last {
            if *number > asked {
                return Ok(answer.clone());
            }
        }
        let number = self.begun.fetch_add(1, Ordering::SeqCst) + 1;
        let answer = Arc::new(read().await?);
        *last = Some((number, answer.clone()));
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Forty callers at once while a reading is under way: the reading under way answers none
    /// of them (it began before they asked), and one more reading answers them all.
    #[tokio::test]
    async fn callers_at_once_share_one_reading_begun_after_they_asked() {
        let flight = Arc::new(SingleFlight::<u32>::default());
        let readings = Arc::new(AtomicU64::new(0));
        let reading = |flight: Arc<SingleFlight<u32>>, readings: Arc<AtomicU64>| async move {
            flight
                .read(|| async {
                    let n = readings.fetch_add(1, Ordering::SeqCst) as u32 + 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    Ok::<_, ()>(n)
                })
                .await
                .unwrap()
        };
        let first = tokio::spawn(reading(flight.clone(), readings.clone()));
        // The first reading is under way before the others ask.
        while readings.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        let others: Vec<_> = (0..40)
            .map(|_| tokio::spawn(reading(flight.clone(), readings.clone())))
            .collect();
        assert_eq!(*first.await.unwrap(), 1);
        for other in others {
            assert_eq!(
                *other.await.unwrap(),
                2,
                "answered from a reading begun before"
            );
        }
        assert_eq!(readings.load(Ordering::SeqCst), 2);
    }

    /// One caller after another reads anew each time: nothing is kept for later callers.
    #[tokio::test]
    async fn a_later_caller_gets_a_reading_of_its_own() {
        let flight = SingleFlight::<u32>::default();
        let readings = std::cell::Cell::new(0);
        for expected in 1..=3 {
            let read = || async {
                readings.set(readings.get() + 1);
                Ok::<_, ()>(readings.get())
            };
            assert_eq!(*flight.read(read).await.unwrap(), expected);
        }
    }

    /// A failed reading is no one's answer but its caller's.
    #[tokio::test]
    async fn a_failed_reading_is_not_shared() {
        let flight = SingleFlight::<u32>::default();
        let failed = flight.read(|| async { Err::<u32, &str>("no") }).await;
        assert_eq!(failed, Err("no"));
        let read = flight.read(|| async { Ok::<_, &str>(7) }).await;
        assert_eq!(read.map(|a| *a), Ok(7));
    }
}
