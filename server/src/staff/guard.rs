//! What keeps sign-on from being abused that lives in this process (issue 31): argon2's turns,
//! and the tries of staff IDs that do not exist.
//!
//! - **Turns.** argon2id takes 19 MiB and tens of milliseconds of a core per check. Unbounded,
//!   200 sign-ons at once took the server from 25 MB to 2.8 GB (never given back) and a
//!   writer's sale from 2 ms to 330 ms. A sign-on is admitted before anything of it is done (a
//!   bounded number: the turns and the places to wait for one) or refused with 429 after a
//!   second's timer (`admit_or_wait`), costing no processor; every check (a known person's, and the stand-in check of an unknown ID,
//!   which keeps the timing alike) takes one of a few turns.
//! - **An unknown ID costs no processor.** Its stand-in waits, in its turn, as long as a real
//!   check takes here (learnt from the checks made, `check_time`) instead of hashing: a storm
//!   of invented IDs then takes turns and places, never the cores the sales need. Until a
//!   check has been timed, the stand-in hashes (and is timed).
//! - **Unknown IDs.** A try for an ID that does not exist is counted here, with the same
//!   lock-out as a person's (`keno_core::reserve_try`), so a locked ID answers alike whether it
//!   exists or not and the lock-out enumerates nothing. It is not written to the trail one row
//!   per try, which a stranger could grow without end: the tally is recorded once a minute
//!   (`sign_on_unknown_failures`, `--sign-on-tally-interval`), with the places it came from. The counts are this process's
//!   (several instances each keep their own), and bounded.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use keno_api::Refusal;
use keno_core::{FailureCount, LockOut, SignOnRefusal};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::audit::log::{append, Entry};
use crate::error::Failure;
use crate::store::Store;

/// How long a sign-on refused for want of a place waits before its 429. A client that retries
/// at once (a storm's do) then comes back once a second instead of thousands of times, and its
/// refusals stop taking the processor the sales need; the wait is a timer on the connection,
/// no thread and no processor (connections themselves are bounded by the server's and the
/// proxy's limits). Measured: docs/deployment.md, "Sign-on that cannot be abused".
const REFUSED_WAIT: Duration = Duration::from_secs(1);

/// Unknown IDs' counts kept at most; past it, those not locked are forgotten first.
const UNKNOWN_KEPT: usize = 10_000;
/// Places named in one tally of the trail; the rest are summed.
const TALLY_PLACES: usize = 10;

/// The sign-on guard: its own app data beside the state, shared by the handlers that sign on.
pub struct SignOnGuard {
    turns: Semaphore,
    /// Sign-ons under way: the turns and the places to wait for one.
    admitted: Semaphore,
    lock_out: LockOut,
    unknown: Mutex<Unknown>,
    /// How long a check takes here, as learnt (`checked`).
    check_time: Mutex<Option<Duration>>,
}

#[derive(Default)]
struct Unknown {
    counts: HashMap<(String, String), FailureCount>,
    tally: Option<Tally>,
}

/// Failed tries of unknown IDs since the last record: how many, from when, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    pub failures: u64,
    pub first_at: i64,
    pub last_at: i64,
    pub by_place: HashMap<String, u64>,
}

impl Tally {
    /// The trail's payload: the places with the most failures first.
    pub fn payload(&self) -> serde_json::Value {
        let mut places: Vec<(&String, &u64)> = self.by_place.iter().collect();
        places.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let named: Vec<serde_json::Value> = places
            .iter()
            .take(TALLY_PLACES)
            .map(|(place, n)| serde_json::json!({ "place": place, "failures": n }))
            .collect();
        let others: u64 = places.iter().skip(TALLY_PLACES).map(|(_, n)| **n).sum();
        serde_json::json!({
            "failures": self.failures, "from": self.first_at, "to": self.last_at,
            "places": named, "other_places_failures": others,
        })
    }
}

/// A turn at argon2, given back when dropped.
pub struct Turn<'a> {
    _permit: SemaphorePermit<'a>,
}

/// A sign-on admitted (its place given back when dropped).
pub struct Admitted<'a> {
    _permit: SemaphorePermit<'a>,
}

impl SignOnGuard {
    /// `turns` checks at once (`--sign-on-checks`), `queue` tries waiting for one
    /// (`--sign-on-queue`).
    pub fn new(turns: usize, queue: usize, lock_out: LockOut) -> SignOnGuard {
        SignOnGuard {
            turns: Semaphore::new(turns.max(1)),
            admitted: Semaphore::new(turns.max(1) + queue),
            lock_out,
            unknown: Mutex::new(Unknown::default()),
            check_time: Mutex::new(None),
        }
    }

    /// Learns from a check that took `took`: a moving average, an eighth each, so that one
    /// slow check (a busy moment) moves it little.
    pub fn checked(&self, took: Duration) {
        let mut time = self.check_time.lock().unwrap_or_else(|p| p.into_inner());
        *time = Some(match *time {
            None => took,
            Some(was) => (was * 7 + took) / 8,
        });
    }

    /// How long a check takes here, once one has been timed.
    pub fn check_time(&self) -> Option<Duration> {
        *self.check_time.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Admits a sign-on (or a supervisor's approval at a counter) before anything of it is
    /// done, not even a read, or refuses it at once with 429: at most as many are under way as
    /// there are turns and places to wait for one, so a flood costs no thread, connection or
    /// memory beyond those.
    pub fn admit(&self) -> Result<Admitted<'_>, Failure> {
        match self.admitted.try_acquire() {
            Ok(permit) => Ok(Admitted { _permit: permit }),
            Err(_) => Err(Failure::too_many(
                Refusal::TooManyRequests,
                "too many sign-ons at once: try again in a second",
                1,
            )),
        }
    }

    /// As [`SignOnGuard::admit`], a refusal answered only after [`REFUSED_WAIT`].
    pub async fn admit_or_wait(&self) -> Result<Admitted<'_>, Failure> {
        let admitted = self.admit();
        if admitted.is_err() {
            tokio::time::sleep(REFUSED_WAIT).await;
        }
        admitted
    }

    /// A turn at argon2, waited for: the sign-ons admitted are few.
    pub async fn turn(&self, _admitted: &Admitted<'_>) -> Result<Turn<'_>, Failure> {
        let permit = self
            .turns
            .acquire()
            .await
            .map_err(|_| Failure::Internal(anyhow::anyhow!("the sign-on turns were closed")))?;
        Ok(Turn { _permit: permit })
    }

    /// Takes a try for the unknown ID `id` at `place`, as a person's would be taken.
    pub fn reserve_unknown(&self, id: &str, place: &str, now: i64) -> Result<u32, SignOnRefusal> {
        let mut unknown = self.unknown.lock().unwrap_or_else(|p| p.into_inner());
        if unknown.counts.len() >= UNKNOWN_KEPT {
            unknown
                .counts
                .retain(|_, c| c.locked_until.is_some_and(|until| until > now));
            if unknown.counts.len() >= UNKNOWN_KEPT {
                unknown.counts.clear();
            }
        }
        let key = (id.to_string(), place.to_string());
        let stored = unknown.counts.get(&key).copied().unwrap_or_default();
        let reserved = keno_core::reserve_try(false, stored, self.lock_out, now);
        unknown.counts.insert(key, reserved.store);
        reserved.outcome
    }

    /// Counts try number `attempt` of the unknown ID `id` at `place`, failed: the lock it
    /// brings, if any, as a person's would.
    pub fn unknown_failed(&self, id: &str, place: &str, attempt: u32, now: i64) -> Option<i64> {
        let mut unknown = self.unknown.lock().unwrap_or_else(|p| p.into_inner());
        let key = (id.to_string(), place.to_string());
        let stored = unknown.counts.get(&key).copied();
        let lock = keno_core::after_failed_try(attempt, stored, self.lock_out, now);
        if let Some(locked) = lock {
            unknown.counts.insert(key, locked);
        }
        let tally = unknown.tally.get_or_insert_with(|| Tally {
            failures: 0,
            first_at: now,
            last_at: now,
            by_place: HashMap::new(),
        });
        tally.failures += 1;
        tally.last_at = now;
        // Bounded like the counts: a place past the table's size is summed with the others.
        let known_place = tally.by_place.contains_key(place);
        if known_place || tally.by_place.len() < UNKNOWN_KEPT {
            *tally.by_place.entry(place.to_string()).or_default() += 1;
        } else {
            *tally.by_place.entry("other".into()).or_default() += 1;
        }
        lock.and_then(|l| l.locked_until)
    }

    /// The tally since the last one taken, if any try failed.
    pub fn take_tally(&self) -> Option<Tally> {
        let mut unknown = self.unknown.lock().unwrap_or_else(|p| p.into_inner());
        unknown.tally.take()
    }

    /// Gives back a tally whose record failed, so that it is recorded with the next.
    pub fn restore_tally(&self, tally: Tally) {
        let mut unknown = self.unknown.lock().unwrap_or_else(|p| p.into_inner());
        match &mut unknown.tally {
            None => unknown.tally = Some(tally),
            Some(now) => {
                now.failures += tally.failures;
                now.first_at = now.first_at.min(tally.first_at);
                for (place, n) in tally.by_place {
                    *now.by_place.entry(place).or_default() += n;
                }
            }
        }
    }
}

/// Records the unknown IDs' tally in the trail every `interval` (`--sign-on-tally-interval`,
/// a minute) while there is one (`sign_on_unknown_failures`); a record that fails is kept for
/// the next.
pub async fn record_tallies(store: Store, guard: Arc<SignOnGuard>, interval: Duration) {
    let mut every = tokio::time::interval(interval);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let Some(tally) = guard.take_tally() else {
            continue;
        };
        let payload = tally.payload();
        let recorded = crate::store::write(&store, None, move |conn| {
            let entry = Entry::new(
                crate::audit::kind::EntryKind::SignOnUnknownFailures,
                "unknown staff IDs",
                payload,
            );
            Ok(append(conn, vec![entry])?)
        })
        .await;
        if let Err(e) = recorded {
            tracing::warn!(error = %e, "the unknown staff IDs' failed sign-ons were not recorded; kept for the next minute");
            guard.restore_tally(tally);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: LockOut = LockOut {
        max_failures: 3,
        lock_micros: 1_000,
    };

    #[test]
    fn an_unknown_id_locks_as_a_person_would_and_is_tallied() {
        let guard = SignOnGuard::new(1, 1, POLICY);
        for attempt in 1..=3 {
            assert_eq!(
                guard.reserve_unknown("999", "address:192.0.2.1", 10),
                Ok(attempt)
            );
            let lock = guard.unknown_failed("999", "address:192.0.2.1", attempt, 10);
            assert_eq!(lock, (attempt == 3).then_some(1_010));
        }
        assert_eq!(
            guard.reserve_unknown("999", "address:192.0.2.1", 20),
            Err(SignOnRefusal::Locked { until: 1_010 })
        );
        assert_eq!(
            guard.reserve_unknown("999", "address:192.0.2.2", 20),
            Ok(1),
            "another place is not locked"
        );
        let tally = guard.take_tally().expect("three failures");
        assert_eq!(tally.failures, 3);
        assert_eq!(tally.by_place["address:192.0.2.1"], 3);
        assert_eq!(guard.take_tally(), None);
    }

    #[tokio::test]
    async fn sign_ons_past_the_turns_and_the_queue_are_refused_at_once() {
        let guard = SignOnGuard::new(1, 1, POLICY);
        let first = guard.admit().expect("the turn's place");
        let second = guard.admit().expect("the one place to wait");
        assert!(matches!(
            guard.admit(),
            Err(Failure::Refused {
                refusal: Refusal::TooManyRequests,
                ..
            })
        ));
        let turn = guard.turn(&first).await.expect("the one turn");
        let mut waiting = Box::pin(guard.turn(&second));
        assert!(futures_poll_once(waiting.as_mut()).await.is_none(), "waits");
        drop(turn);
        assert!(
            waiting.await.is_ok(),
            "the waiting try gets the turn given back"
        );
        drop(first);
        assert!(guard.admit().is_ok(), "a place given back admits another");
    }

    #[tokio::test]
    async fn a_sign_on_refused_for_want_of_a_place_is_not_answered_at_once() {
        let guard = SignOnGuard::new(1, 0, POLICY);
        let _only = guard.admit().expect("the one place");
        let mut refused = Box::pin(guard.admit_or_wait());
        assert!(
            futures_poll_once(refused.as_mut()).await.is_none(),
            "the refusal waits"
        );
        assert!(refused.await.is_err(), "then it is refused");
    }

    /// Polls a future once: its output if ready.
    #[test]
    fn the_time_of_a_check_is_learnt_slowly() {
        let guard = SignOnGuard::new(1, 0, POLICY);
        assert_eq!(guard.check_time(), None);
        guard.checked(Duration::from_millis(40));
        assert_eq!(guard.check_time(), Some(Duration::from_millis(40)));
        guard.checked(Duration::from_millis(120));
        assert_eq!(guard.check_time(), Some(Duration::from_millis(50)));
    }

    async fn futures_poll_once<F: std::future::Future + Unpin>(f: F) -> Option<F::Output> {
        let mut f = f;
        std::future::poll_fn(|cx| {
            std::task::Poll::Ready(match std::pin::Pin::new(&mut f).poll(cx) {
                std::task::Poll::Ready(v) => Some(v),
                std::task::Poll::Pending => None,
            })
        })
        .await
    }
}
