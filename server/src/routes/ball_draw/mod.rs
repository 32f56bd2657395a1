//! The ball draw's endpoints (`ball_draw`): a device's balls and faults, corrections, devices
//! in and out of service, and the draw's record.

pub mod balls;
pub mod corrections;
pub mod devices;
pub mod faults;
pub mod record;
