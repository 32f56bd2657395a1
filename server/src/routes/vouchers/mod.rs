//! The vouchers' endpoints (`vouchers`).

pub mod cash;
pub mod issue;
pub mod lookup;
