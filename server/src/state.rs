//! What every handler and background task shares.

use std::sync::Arc;
use std::time::Duration;

use keno_core::{DrawSource, DrawerSettings, LiabilityLimits, RuleSet};
use tokio::sync::Notify;

use actix_web::web;

use crate::db::DbConnection;
use crate::error::DomainResult;
use crate::events::bus::Events;
use crate::keno_day::KenoHours;
use crate::rule_sets::RuleSets;
use crate::store::Store;

#[derive(Clone, Debug)]
pub struct Settings {
    /// How long a game is open for sale.
    pub game_interval: Duration,
    /// Pause between two drawn numbers on the displays.
    pub reveal_interval: Duration,
    pub hours: KenoHours,
    pub draw_source: DrawSource,
    /// How long a ball draw stays open to correction after its 20th ball (rule 10.1).
    pub ball_check: Duration,
    /// The least notice players have of an early closure of Keno (rule 16.2).
    pub closure_notice: Duration,
    /// Sign-on, sessions and payout authority.
    pub staff: crate::staff::StaffSettings,
    /// What one sale may add to the open game's liability (issue 18).
    pub limits: keno_core::LiabilityLimits,
    /// Cents a drawer may be over or short at a shift's close without a supervisor's sign-off.
    pub over_short_tolerance_cents: u64,
    /// How often the live liability's book catches up; `None`: only when asked.
    pub liability_interval: Option<std::time::Duration>,
}

impl Settings {
    /// What the core's drawer decisions need of the settings.
    pub fn drawer(&self) -> DrawerSettings {
        DrawerSettings {
            ball_check_micros: self.ball_check.as_micros() as i64,
        }
    }
}

pub struct AppState {
    /// The database and the fault harness's pauses inside transactions.
    pub store: Store,
    /// The event streams open, against their caps.
    pub streams: Arc<crate::events::slots::StreamSlots>,
    pub rules: Arc<RuleSet>,
    /// SHA-256 of the rule set in force, stored with each game and ticket.
    pub rule_set_hash: String,
    /// SHA-256 of its Special 3 table, when it defines one: what an approval must cover
    /// (`special3::schedule_digest`).
    pub special3_digest: Option<String>,
    /// Rule sets of earlier games, to settle and show each game under its own.
    pub rule_sets: crate::rule_sets::RuleSets,
    pub settings: Settings,
    pub events: Events,
    pub principals: crate::auth::principal::PrincipalCache,
    /// A jackpot ticket was sold since the pools were last announced.
    pub jackpots_changed: std::sync::atomic::AtomicBool,
    /// Whether this instance leads: opens, closes, draws and settles (`leader.rs`).
    pub leadership: Arc<crate::leader::Leadership>,
    /// The audit trail's signing key and checkpoint file (issue 20).
    pub anchor: crate::audit::anchor::make::Anchor,
    /// Wakes the game clock (a supervisor closed the game early).
    pub clock_wake: Notify,
    /// Wakes the drawer (a game was closed).
    pub drawer_wake: Notify,
    /// Checks of tickets by the public, per client address.
    pub check_limit: crate::rate_limit::PerAddress,
    /// Bearer tokens that matched no principal, per client address.
    pub auth_failures: crate::rate_limit::AuthFailures,
    /// Key the limits on the last address of `X-Forwarded-For` (set by a reverse proxy), not
    /// on the TCP peer (`--trust-forwarded-for`).
    pub trust_forwarded_for: bool,
    /// The last game this process announced as closed: a game the drawer finds closed beyond
    /// it was closed before a restart, and its close and numbers are announced again.
    pub announced_close: std::sync::atomic::AtomicI64,
}

impl AppState {
    /// The drawer has something to do (a game closed, a ball came in, a correction was
    /// approved), wherever it runs.
    pub fn wake_drawer(&self) {
        self.drawer_wake.notify_one();
        self.events.wake_others(crate::events::bus::Wake::Drawer);
    }

    /// What a sale is judged by against the open game's liability limits (`liability::hold`):
    /// the rule set in force, the rule sets of the games, the limits.
    pub fn judging(&self) -> (&RuleSet, &RuleSets, LiabilityLimits) {
        (&self.rules, &self.rule_sets, self.settings.limits)
    }

    /// The game clock should look at the open game again, wherever it runs.
    pub fn wake_clock(&self) {
        self.clock_wake.notify_one();
        self.events.wake_others(crate::events::bus::Wake::Clock);
    }
}

/// `store::write` for work that reads the app's state (settings, rules, caches) as it goes:
/// the state is captured and handed to the work beside the connection.
pub async fn write<T, F>(
    state: &web::Data<AppState>,
    stage: Option<&'static str>,
    work: F,
) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppState, &mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    let captured = state.clone();
    crate::store::write(&state.store, stage, move |conn| work(&captured, conn)).await
}

/// `store::read`, the state handed to the work (as [`write`]).
pub async fn read<T, F>(state: &web::Data<AppState>, work: F) -> DomainResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppState, &mut DbConnection) -> DomainResult<T> + Send + 'static,
{
    let captured = state.clone();
    crate::store::read(&state.store, move |conn| work(&captured, conn)).await
}
