//! The software proving what it is (issue 33): its components with their digests.

use serde::{Deserialize, Serialize};

/// One part of the running software.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Component {
    /// `binary`, `rules`, `migrations/sqlite`, `migrations/postgres`, or a page's path in the
    /// source tree (`server/src/console/console.js`).
    pub name: String,
    /// Where its bytes were read: a file's path, "compiled in", the built-in rules.
    pub source: String,
    pub bytes: u64,
    /// SHA-256 of its bytes (of a folder: of its `sha256sum` listing), hex.
    pub sha256: String,
    /// HMAC-SHA256 keyed with the seed asked for, over the same bytes, hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hmac_sha256: Option<String>,
}

/// `GET /api/v1/integrity` and `keno-server integrity --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Integrity {
    /// `keno-server` and its version.
    pub release: String,
    /// The seed the HMACs are keyed with, as given (hex), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    pub components: Vec<Component>,
    /// Against the approved manifest the server was started with, if any: each difference in
    /// a sentence (empty when every component is as approved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<Vec<String>>,
}
