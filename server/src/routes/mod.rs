//! The HTTP layer's handlers, one file per domain module they serve (`routes/tickets/pay.rs`
//! answers `POST /api/v1/tickets/{serial}/pay` by calling `tickets::pay`): they read the
//! request, take what the domain needs of the app's state (the store, the settings in force),
//! and hand the domain a connection and those settings. The domain never names actix or the
//! state.

pub mod audit;
pub mod ball_draw;
pub mod bonus;
pub mod bonus_fund;
pub mod claims;
pub mod closures;
pub mod displays;
pub mod extract;
pub mod game_summary;
pub mod games;
pub mod incidents;
pub mod integrity;
pub mod invalidation;
pub mod jackpots;
pub mod liability;
pub mod schedules;
pub mod set_bets;
pub mod shifts;
pub mod special3;
pub mod staff;
pub mod suspension;
pub mod tickets;
pub mod vouchers;
pub mod why;
