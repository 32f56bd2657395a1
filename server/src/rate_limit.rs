//! Rate limits on public endpoints that reveal whether something exists: guessing ticket serials
//! at the check page is futile by their entropy (19 random digits) and slowed further here.

use std::net::IpAddr;
use std::num::NonZeroU32;

use actix_web::http::StatusCode;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;

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
    pub fn take(&self, address: IpAddr) -> Result<(), ApiError> {
        // Forget addresses whose allowance is full again, so the table stays small.
        if self.limiter.len() > 10_000 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(&address).map_err(|not_until| {
            let wait = not_until.wait_time_from(self.clock.now()).as_secs() + 1;
            ApiError::refused(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_requests",
                format!("too many checks from this place: try again in {wait} seconds"),
            )
        })
    }
}
