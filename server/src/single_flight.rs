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
    /// The last reading finished: its number (the value of `begun` once it began) and how it
    /// went. Held for the whole of a reading, so readings take turns.
    last: Arc<Mutex<Option<Finished<T>>>>,
}

/// A reading's number, and its outcome as kept for those who share it: its answer, or that it
/// failed.
type Finished<T> = (u64, Result<Arc<T>, ()>);

/// Why a caller got no answer.
#[derive(Debug, PartialEq, Eq)]
pub enum Unread<E> {
    /// Its own reading failed.
    Failed(E),
    /// The reading it shared failed (or panicked): each waiting caller is told at once, rather
    /// than trying again one after another.
    Shared,
}

impl<T> Default for SingleFlight<T> {
    fn default() -> Self {
        SingleFlight {
            begun: AtomicU64::new(0),
            last: Arc::new(Mutex::new(None)),
        }
    }
}

impl<T: Send + Sync + 'static> SingleFlight<T> {
    /// The outcome of a reading begun after this call: another caller's, if one began while
    /// this one waited its turn, else `read`'s, run now. The reading runs in a task of its
    /// own that holds the turn to the end, so a caller that goes away (a client gone) neither
    /// stops it half done nor lets another reading start beside it.
    pub async fn read<E, F, Fut>(&self, read: F) -> Result<Arc<T>, Unread<E>>
    where
        E: Send + 'static,
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<T, E>> + Send + 'static,
    {
        // Counted before waiting: a reading numbered above this began after the call.
        let asked = self.begun.load(Ordering::SeqCst);
        let mut last = self.last.clone().lock_owned().await;
        if let Some((number, read)) = &*last {
            if *number > asked {
                return read.clone().map_err(|()| Unread::Shared);
            }
        }
        let number = self.begun.fetch_add(1, Ordering::SeqCst) + 1;
        let reading = read();
        let own = tokio::spawn(async move {
            let (kept, own) = match reading.await {
                Ok(answer) => {
                    let answer = Arc::new(answer);
                    (Ok(answer.clone()), Ok(answer))
                }
                Err(e) => (Err(()), Err(Unread::Failed(e))),
            };
            *last = Some((number, kept));
            own
        });
        own.await.unwrap_or(Err(Unread::Shared))
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
                .read(|| async move {
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
        let flight = SingleFlight::<u64>::default();
        let readings = Arc::new(AtomicU64::new(0));
        for expected in 1..=3 {
            let readings = readings.clone();
            let read = || async move { Ok::<_, ()>(readings.fetch_add(1, Ordering::SeqCst) + 1) };
            let answer = flight.read(read).await.unwrap();
            assert_eq!(*answer, expected);
        }
    }

    /// A failed reading fails its caller with its error, and at once those who waited for it
    /// (they asked before it began); a caller after it reads anew.
    #[tokio::test]
    async fn a_failed_reading_fails_those_who_shared_it_and_no_later_caller() {
        let flight = Arc::new(SingleFlight::<u32>::default());
        let (go, wait) = tokio::sync::oneshot::channel::<()>();
        let first = {
            let flight = flight.clone();
            let read = || async move {
                wait.await.unwrap();
                Ok::<u32, &str>(1)
            };
            tokio::spawn(async move { flight.read(read).await })
        };
        while flight.begun.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        // Two callers wait behind the first reading; whichever reads next fails, and the other
        // shares that failure rather than reading again.
        let failing = |flight: Arc<SingleFlight<u32>>| {
            tokio::spawn(async move { flight.read(|| async { Err::<u32, &str>("no") }).await })
        };
        let waiting = [failing(flight.clone()), failing(flight.clone())];
        tokio::task::yield_now().await;
        go.send(()).unwrap();
        assert_eq!(first.await.unwrap().map(|a| *a), Ok(1));
        let mut outcomes = Vec::new();
        for w in waiting {
            outcomes.push(w.await.unwrap().map(|a| *a));
        }
        outcomes.sort_by_key(|o| format!("{o:?}"));
        assert_eq!(
            outcomes,
            vec![Err(Unread::Failed("no")), Err(Unread::Shared)]
        );
        assert_eq!(flight.begun.load(Ordering::SeqCst), 2);
        let later = flight.read(|| async { Ok::<_, &str>(7) }).await;
        assert_eq!(later.map(|a| *a), Ok(7));
    }

    /// A caller that goes away mid-reading leaves the reading to finish, holding the turn: the
    /// next caller does not read beside it, and takes a reading begun after it asked.
    #[tokio::test]
    async fn a_caller_gone_leaves_its_reading_to_finish_alone() {
        let flight = Arc::new(SingleFlight::<u32>::default());
        let running = Arc::new(AtomicU64::new(0));
        let most = Arc::new(AtomicU64::new(0));
        let reading = |running: Arc<AtomicU64>, most: Arc<AtomicU64>| async move {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(50)).await;
            running.fetch_sub(1, Ordering::SeqCst);
            Ok::<_, ()>(now as u32)
        };
        let gone = {
            let (flight, r, m) = (flight.clone(), running.clone(), most.clone());
            tokio::spawn(async move { flight.read(|| reading(r, m)).await })
        };
        while running.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        gone.abort();
        let next = flight.read(|| reading(running.clone(), most.clone())).await;
        assert_eq!(next.map(|a| *a), Ok(1));
        assert_eq!(most.load(Ordering::SeqCst), 1, "two readings ran at once");
        assert_eq!(flight.begun.load(Ordering::SeqCst), 2);
    }
}
