//! `schemas/openapi.json` is generated from the code; this fails when the checked-in copy is
//! stale. To refresh it: `cargo run -p keno-server -- openapi > schemas/openapi.json`.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn the_checked_in_openapi_document_matches_the_code() {
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .arg("openapi")
        .output()
        .unwrap();
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).unwrap();
    // The manifest dir as cargo gives it when running the test, not as compiled: a test binary
    // built in another checkout that shares the target dir must still read this one's file.
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let path = dir.join("../schemas/openapi.json");
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        generated == checked_in,
        "schemas/openapi.json is stale: run `cargo run -p keno-server -- openapi > schemas/openapi.json`"
    );
    // The contract's fixed points are in it (shared/API.md).
    let doc: serde_json::Value = serde_json::from_str(&generated).unwrap();
    for path in [
        "/api/v1/games/current",
        "/api/v1/games/{number}",
        "/api/v1/games",
        "/api/v1/games/current/close",
        "/api/v1/tickets",
        "/api/v1/tickets/{serial}",
        "/api/v1/tickets/{serial}/check",
        "/api/v1/tickets/{serial}/cancel",
        "/api/v1/tickets/{serial}/pay",
        "/api/v1/jackpots",
        "/api/v1/events",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} is missing");
    }
}
