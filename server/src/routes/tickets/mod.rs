//! The tickets' endpoints (`tickets`).

pub mod cancel;
pub mod pay;
pub mod recent;
pub mod sale;
pub mod story;
pub mod view;
pub mod void;
