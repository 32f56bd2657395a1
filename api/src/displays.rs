//! Registered displays (issue 31): a venue's board with a credential of its own, which gets
//! it an event stream outside the caps anonymous streams share (`GET /api/v1/events`,
//! `?display=` or `Authorization: Bearer kd_...`), and nothing else.

use serde::{Deserialize, Serialize};

/// A registered display.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DisplayInfo {
    pub site: String,
    pub display: String,
    pub registered_at: String,
    /// When the credential in force was made: at registration or at the last rotation.
    pub credential_at: String,
    /// A disabled display's credential is refused (its stream would be an anonymous one's);
    /// rotating its credential enables it again.
    pub disabled: bool,
}

/// A display to register.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RegisterDisplay {
    /// The site: 1 to 16 letters, digits or dashes.
    pub site: String,
    /// The display's name at the site: 1 to 16 letters, digits or dashes.
    pub display: String,
    pub reason: String,
}

/// Why a display's credential is rotated or the display disabled.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DisplayChange {
    pub reason: String,
}

/// A display's credential, shown once: it goes in the board's address
/// (`/?display=kd_...`) or its own config.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DisplayCredential {
    pub site: String,
    pub display: String,
    pub credential: String,
}
