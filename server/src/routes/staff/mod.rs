pub mod overrides;

use actix_web::web;

use crate::staff::{people, sessions, terminals};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(sessions::sign_on)
        .service(sessions::current)
        .service(sessions::sign_off)
        .service(people::list)
        .service(people::add)
        .service(people::disable_person)
        .service(people::enable_person)
        .service(people::reset_secret)
        .service(terminals::list)
        .service(terminals::register)
        .service(terminals::rotate)
        .service(overrides::grant);
}
