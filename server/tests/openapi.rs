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

/// utoipa names a component after its type and keeps the last of two types of one name: an
/// operation then documents another type's body (the prize schedules were documented as the
/// `Schedule` enum of a ticket, a claim's approval as Special 3's `Approval`). Every type that
/// derives `ToSchema` must have a name of its own (or one given by `#[schema(as = ...)]`), the
/// wire's types in keno-api (`#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]`)
/// included.
#[test]
fn no_two_schema_types_share_a_name() {
    let root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let mut files = Vec::new();
    let mut dirs = vec![
        root.join("src"),
        root.join("../core/src"),
        root.join("../api/src"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut names: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let line = line.trim();
            let derives = line.starts_with("#[derive(") || line.starts_with("#[cfg_attr(");
            if !(derives && line.contains("ToSchema")) {
                continue;
            }
            let mut renamed = None;
            for next in &lines[i + 1..] {
                let next = next.trim();
                let rename = next.strip_prefix("#[schema(as = ").or_else(|| {
                    next.strip_prefix("#[cfg_attr(feature = \"openapi\", schema(as = ")
                });
                if let Some(rest) = rename {
                    renamed = Some(
                        rest.trim_end_matches(")]")
                            .trim_end_matches(')')
                            .trim()
                            .to_string(),
                    );
                }
                let item = next
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub ");
                let item = item
                    .strip_prefix("struct ")
                    .or_else(|| item.strip_prefix("enum "));
                if let Some(item) = item {
                    let name: String = item
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let name = renamed.unwrap_or(name);
                    names
                        .entry(name)
                        .or_default()
                        .push(format!("{}:{}", file.display(), i + 1));
                    break;
                }
            }
        }
    }
    assert!(names.len() > 20, "found too few schema types: {names:?}");
    let shared: Vec<_> = names.iter().filter(|(_, at)| at.len() > 1).collect();
    assert!(shared.is_empty(), "schema names used twice: {shared:?}");
}

/// Resolves a local `$ref` once.
fn resolve<'a>(doc: &'a serde_json::Value, v: &'a serde_json::Value) -> &'a serde_json::Value {
    match v["$ref"].as_str() {
        Some(r) => doc.pointer(r.trim_start_matches('#')).unwrap(),
        None => v,
    }
}

#[test]
fn bodies_are_the_types_the_handlers_use_and_unreadable_requests_are_400() {
    let out = Command::new(env!("CARGO_BIN_EXE_keno-server"))
        .arg("openapi")
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let schedules = &doc["paths"]["/api/v1/schedules"]["get"]["responses"]["200"]["content"]
        ["application/json"]["schema"]["items"];
    let schedule = resolve(&doc, schedules);
    assert!(
        schedule["properties"]["spots"].is_object(),
        "GET /api/v1/schedules lists prize schedules: {schedule}"
    );
    let approve = &doc["paths"]["/api/v1/claims/{id}/approve"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"];
    let approve = resolve(&doc, approve);
    assert!(
        approve["properties"]["serial"].is_object(),
        "a claim's approval names the ticket: {approve}"
    );
    // A path, a query or a body that cannot be read is a 400 `invalid_request` (api::routes).
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let reads = op["parameters"].as_array().is_some_and(|p| !p.is_empty())
                || op["requestBody"].is_object();
            if reads {
                let bad = &op["responses"]["400"];
                assert!(
                    bad["description"]
                        .as_str()
                        .is_some_and(|d| d.contains("invalid_request")),
                    "{method} {path} does not document 400 invalid_request"
                );
            }
        }
    }
}
