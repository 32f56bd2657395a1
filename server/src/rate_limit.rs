//! Per-address limits on what a stranger can try: checks of ticket serials at the public check
//! page (`--check-rate`), and bearer tokens that match no principal (`--auth-failure-rate`,
//! `--auth-failure-burst`).
//!
//! Neither is what keeps secrets secret: a serial has 19 random digits (63 bits, see
//! `keno_core::serial`) and a token 256 random bits, so guessing is futile even unlimited. The
//! limits keep a guesser from loading the database and make the futility certain.
//!
//! The limits key on the client's address: the TCP peer, or with `--trust-forwarded-for` the
//! last address of `X-Forwarded-For` (what the one reverse proxy in front saw). An IPv6 client
//! is keyed by its /64, the block one subscriber usually holds, so a guesser cannot step through
//! its own addresses to escape the limit.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::HttpRequest;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::Failure;
use keno_api::Refusal;

/// The address a request's limits are kept under (see the module's documentation).
pub fn client_key(req: &HttpRequest, trust_forwarded_for: bool) -> Option<IpAddr> {
    let forwarded = if trust_forwarded_for {
        req.headers()
            .get_all("x-forwarded-for")
            .last()
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|last| last.trim().parse::<IpAddr>().ok())
    } else {
        None
    };
    forwarded
        .or_else(|| req.peer_addr().map(|a| a.ip()))
        .map(key_of)
}

/// An IPv4 address as it is (an IPv4-mapped IPv6 address as IPv4); an IPv6 address as its /64.
fn key_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// Per client address: a burst, then a steady rate.
pub struct PerAddress {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
}

impl PerAddress {
    /// `per_minute` requests a minute on average, up to `burst` at once.
    pub fn new(per_minute: NonZeroU32, burst: NonZeroU32) -> PerAddress {
        PerAddress {
            limiter: RateLimiter::keyed(Quota::per_minute(per_minute).allow_burst(burst)),
            clock: DefaultClock::default(),
        }
    }

    /// Takes one request from `address`'s allowance, or refuses with 429.
    pub fn take(&self, address: IpAddr) -> Result<(), Failure> {
        // Forget addresses whose allowance is full again, so the table stays small.
        if self.limiter.len() > 10_000 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(&address).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.clock.now()).as_secs() + 1;
            Failure::too_many(
                Refusal::TooManyRequests,
                format!("too many checks from this place: try again in {wait} seconds"),
                wait,
            )
        })
    }
}

/// Failed authentications per client address: each address may fail `burst` times, and one
/// more each `60 / per_minute` seconds. An address that has used its allowance is refused with
/// 429 `too_many_auth_failures` before its token is looked up, so it learns nothing more until
/// the allowance comes back. Only failures count: a terminal with a good token is never slowed.
pub struct AuthFailures {
    per_second: f64,
    burst: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
    /// The lookups of tokens from addresses over their limit: a few at a time in all, whatever
    /// the number of guessers.
    suspects: tokio::sync::Semaphore,
}

/// How many tokens from addresses over their limit are looked up at once, in all.
const SUSPECT_LOOKUPS: usize = 2;

/// How long a bad token from an address over its limit waits for its refusal: a guesser's
/// every try costs it this, and it costs the server a sleeping task.
pub const FAILURE_PAUSE: Duration = Duration::from_secs(1);

/// Failures an address may still make, as of `at`.
struct Bucket {
    left: f64,
    at: Instant,
}

impl AuthFailures {
    pub fn new(per_minute: NonZeroU32, burst: NonZeroU32) -> AuthFailures {
        AuthFailures {
            per_second: f64::from(per_minute.get()) / 60.0,
            burst: f64::from(burst.get()),
            buckets: Mutex::new(HashMap::new()),
            suspects: tokio::sync::Semaphore::new(SUSPECT_LOOKUPS),
        }
    }

    /// A turn to look up a token from an address over its limit (see [`SUSPECT_LOOKUPS`]).
    pub async fn suspect_turn(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        // The semaphore is never closed, so a turn always comes.
        self.suspects.acquire().await.ok()
    }

    fn refill(&self, bucket: &mut Bucket, now: Instant) {
        let earned = now.saturating_duration_since(bucket.at).as_secs_f64() * self.per_second;
        bucket.left = (bucket.left + earned).min(self.burst);
        bucket.at = now;
    }

    /// Refuses with 429 while `address` has no failure left.
    pub fn check(&self, address: IpAddr) -> Result<(), Failure> {
        self.check_at(address, Instant::now())
    }

    fn check_at(&self, address: IpAddr, now: Instant) -> Result<(), Failure> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let Some(bucket) = buckets.get_mut(&address) else {
            return Ok(());
        };
        self.refill(bucket, now);
        if bucket.left >= 1.0 {
            return Ok(());
        }
        let wait = ((1.0 - bucket.left) / self.per_second).ceil().max(1.0);
        Err(Failure::too_many(
            Refusal::TooManyAuthFailures,
            format!(
                "too many requests with a bad token from this place: try again in {wait} seconds"
            ),
            wait as u64,
        ))
    }

    /// Takes one try from `address`'s allowance before anything is checked (a sign-on without
    /// a terminal's credential, issue 31), or refuses with 429: tries at once each take their
    /// own, so no more are judged than the allowance holds. [`AuthFailures::give_back`]
    /// returns it when the try succeeds.
    pub fn take(&self, address: IpAddr) -> Result<(), Failure> {
        self.take_at(address, Instant::now())
    }

    fn take_at(&self, address: IpAddr, now: Instant) -> Result<(), Failure> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        self.forget_full(&mut buckets, now);
        let bucket = buckets.entry(address).or_insert(Bucket {
            left: self.burst,
            at: now,
        });
        self.refill(bucket, now);
        if bucket.left >= 1.0 {
            bucket.left -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - bucket.left) / self.per_second).ceil().max(1.0);
        Err(Failure::too_many(
            Refusal::TooManyAuthFailures,
            format!("too many sign-on tries from this place: try again in {wait} seconds"),
            wait as u64,
        ))
    }

    /// Returns a try taken by [`AuthFailures::take`] that succeeded.
    pub fn give_back(&self, address: IpAddr) {
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(bucket) = buckets.get_mut(&address) {
            bucket.left = (bucket.left + 1.0).min(self.burst);
        }
    }

    /// Forgets addresses whose allowance is whole again, once the table is large.
    fn forget_full(&self, buckets: &mut HashMap<IpAddr, Bucket>, now: Instant) {
        if buckets.len() > 10_000 {
            let full = Duration::from_secs_f64(self.burst / self.per_second);
            buckets.retain(|_, b| now.saturating_duration_since(b.at) < full);
        }
    }

    /// Counts one failure from `address`; true when that used its last one.
    pub fn fail(&self, address: IpAddr) -> bool {
        self.fail_at(address, Instant::now())
    }

    fn fail_at(&self, address: IpAddr, now: Instant) -> bool {
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        self.forget_full(&mut buckets, now);
        let bucket = buckets.entry(address).or_insert(Bucket {
            left: self.burst,
            at: now,
        });
        self.refill(bucket, now);
        bucket.left = (bucket.left - 1.0).max(0.0);
        bucket.left < 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(per_minute: u32, burst: u32) -> AuthFailures {
        AuthFailures::new(
            NonZeroU32::new(per_minute).unwrap(),
            NonZeroU32::new(burst).unwrap(),
        )
    }

    #[test]
    fn failures_are_refused_after_the_burst_and_allowed_again_at_the_rate() {
        let l = limit(6, 3); // one more failure every 10 seconds
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let t = Instant::now();
        assert!(l.check_at(a, t).is_ok());
        assert!(!l.fail_at(a, t));
        assert!(!l.fail_at(a, t));
        assert!(l.check_at(a, t).is_ok());
        assert!(l.fail_at(a, t), "the third failure uses the last");
        let e = l.check_at(a, t).unwrap_err();
        assert!(matches!(
            e,
            Failure::Refused {
                refusal: Refusal::TooManyAuthFailures,
                retry_after: Some(_),
                ..
            }
        ));
        assert!(l.check_at(b, t).is_ok(), "another address is not touched");
        assert!(l.check_at(a, t + Duration::from_secs(9)).is_err());
        assert!(l.check_at(a, t + Duration::from_secs(10)).is_ok());
        assert!(l.fail_at(a, t + Duration::from_secs(10)));
        assert!(l.check_at(a, t + Duration::from_secs(11)).is_err());
        assert!(l.check_at(a, t + Duration::from_secs(40)).is_ok());
    }

    #[test]
    fn tries_are_taken_before_they_are_judged_and_given_back_on_success() {
        let l = limit(6, 3);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let t = Instant::now();
        // Three tries at once take the three the burst holds; the fourth is refused unjudged.
        for _ in 0..3 {
            assert!(l.take_at(a, t).is_ok());
        }
        assert!(l.take_at(a, t).is_err());
        l.give_back(a);
        assert!(l.take_at(a, t).is_ok(), "a success gives its try back");
        assert!(l.take_at(a, t).is_err());
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_64_and_mapped_ipv4_as_ipv4() {
        let a = key_of("2001:db8:1:2:aaaa::1".parse().unwrap());
        let b = key_of("2001:db8:1:2:bbbb::2".parse().unwrap());
        let c = key_of("2001:db8:1:3::1".parse().unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(
            key_of("::ffff:192.0.2.7".parse().unwrap()),
            "192.0.2.7".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn the_forwarded_address_is_the_last_one_and_only_when_trusted() {
        use actix_web::test::TestRequest;
        let req = TestRequest::default()
            .peer_addr("127.0.0.1:5000".parse().unwrap())
            .insert_header(("X-Forwarded-For", "203.0.113.9, 198.51.100.4"))
            .to_http_request();
        assert_eq!(
            client_key(&req, false),
            Some("127.0.0.1".parse().unwrap()),
            "not trusted: the peer"
        );
        assert_eq!(
            client_key(&req, true),
            Some("198.51.100.4".parse().unwrap()),
            "trusted: what the proxy saw, not what the client wrote"
        );
        let junk = TestRequest::default()
            .peer_addr("127.0.0.1:5000".parse().unwrap())
            .insert_header(("X-Forwarded-For", "not an address"))
            .to_http_request();
        assert_eq!(client_key(&junk, true), Some("127.0.0.1".parse().unwrap()));
    }
}
