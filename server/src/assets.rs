//! The files compiled into the binary that people's screens run: the console's and the player
//! displays' pages. One list, which the HTTP layer serves and `integrity` digests, so what an
//! inspector checks is what the browsers are given.

/// A page or script served as it was compiled in.
pub struct Asset {
    /// Where it is in the source tree (`server/src/console/console.js`): how an inspector
    /// finds it in the approved release.
    pub source: &'static str,
    /// The file's name under its folder (`console.js`).
    pub name: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

macro_rules! asset {
    ($folder:literal, $name:literal, $type:expr) => {
        Asset {
            source: concat!("server/src/", $folder, "/", $name),
            name: $name,
            content_type: $type,
            body: include_str!(concat!($folder, "/", $name)),
        }
    };
}

/// The back-office console (`/console`, `/console/{name}`).
pub const CONSOLE: &[Asset] = &[
    asset!("console", "console.html", HTML),
    asset!("console", "console.css", CSS),
    asset!("console", "console.js", JS),
    asset!("console", "room.js", JS),
    asset!("console", "office.js", JS),
    asset!("console", "records.js", JS),
];

/// The player displays: the board (`/`, `/display`) and the ticket check (`/check`), their
/// scripts and style (`/display/{name}`).
pub const DISPLAY: &[Asset] = &[
    asset!("display", "board.html", HTML),
    asset!("display", "check.html", HTML),
    asset!("display", "board.js", JS),
    asset!("display", "check.js", JS),
    asset!("display", "display.css", CSS),
];

/// The asset `name` of `set`.
pub fn find(set: &'static [Asset], name: &str) -> Option<&'static Asset> {
    set.iter().find(|a| a.name == name)
}
