//! Who is calling (`GET /api/v1/principals/me`): a principal's role and what a terminal's
//! sign-on screen shows of it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Writer,
    Supervisor,
    Inspector,
    Auditor,
    /// Manages supervisors, inspectors and auditors (issue 31: segregation of duties); takes no
    /// part in tickets, claims, the draw or money.
    Administrator,
    Device,
}

impl Role {
    /// Every role, in the order declared.
    pub const ALL: &'static [Role] = &[
        Role::Writer,
        Role::Supervisor,
        Role::Inspector,
        Role::Auditor,
        Role::Administrator,
        Role::Device,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Writer => "writer",
            Role::Supervisor => "supervisor",
            Role::Inspector => "inspector",
            Role::Auditor => "auditor",
            Role::Administrator => "administrator",
            Role::Device => "device",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|r| r.as_str() == s)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who a token belongs to, for a terminal's sign-on screen.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Me {
    /// The principal's id: how faults, corrections and approvals name who made them.
    pub id: String,
    pub role: Role,
    pub name: String,
    pub site: Option<String>,
    pub terminal: Option<String>,
}
