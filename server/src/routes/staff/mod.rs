//! The staff's handlers: sign-on and sessions, people, terminals, a supervisor's approval at
//! the counter (`staff`).

pub mod overrides;
pub mod people;
pub mod sessions;
pub mod terminals;

use actix_web::web;

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
