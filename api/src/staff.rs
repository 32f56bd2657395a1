//! Running the room on the wire: people and their sign-on, sessions, registered terminals, a
//! supervisor's approval at the moment of a ticket action, and writers' shifts.

use serde::{Deserialize, Serialize};

use crate::principals::Role;

/// A person signing on. A writer gives a PIN, at a registered terminal (its credential as the
/// bearer token: rule 5.1, entries only through a writer terminal); a supervisor, inspector or
/// auditor gives a password and the TOTP code of the moment (RFC 6238), at a terminal or not.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SignOn {
    pub staff_id: String,
    /// A writer's PIN, 4 to 8 digits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<String>,
    /// A supervisor's, inspector's or auditor's password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// The 6-digit TOTP code shown now by the person's authenticator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totp: Option<String>,
}

/// A session as it stands: who, where, and when it ends unless used.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Session {
    pub id: String,
    pub staff_id: String,
    pub name: String,
    pub role: Role,
    /// The site and terminal signed on at (a writer's always).
    pub site: Option<String>,
    pub terminal: Option<String>,
    pub started_at: String,
    /// The end of the Keno Day: the session ends then whatever happens.
    pub expires_at: String,
    /// The session ends after this many seconds without a request.
    pub idle_timeout_seconds: u64,
}

/// A sign-on accepted: the session's bearer token, shown once.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignedOn {
    pub token: String,
    pub session: Session,
}

/// A person as the staff list shows them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StaffMember {
    pub staff_id: String,
    pub name: String,
    pub role: Role,
    pub disabled: bool,
    /// Locked after too many failed sign-ons, until then (RFC 3339).
    pub locked_until: Option<String>,
    pub created_at: String,
    /// Sessions open now.
    pub open_sessions: u32,
}

/// A person to add. Without `secret`, the server makes one and shows it once.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AddStaff {
    pub name: String,
    pub role: Role,
    /// A staff ID to use (1 to 16 letters and digits); by default the server numbers one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staff_id: Option<String>,
    /// A writer's PIN or another's password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Why, 1 to 500 characters: recorded.
    pub reason: String,
}

/// A person's secret set (added, or reset): shown once.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StaffSecret {
    pub staff_id: String,
    pub name: String,
    pub role: Role,
    /// The PIN or password, when the server made it (never when it was given).
    pub secret: Option<String>,
    /// For a supervisor, inspector or auditor: the TOTP secret (base32) for the authenticator,
    /// and its `otpauth://` URI.
    pub totp_secret: Option<String>,
    pub totp_uri: Option<String>,
}

/// Why a person is disabled, enabled or their secret reset.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct StaffChange {
    /// 1 to 500 characters.
    pub reason: String,
    /// For a reset: the new PIN or password; by default the server makes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// A registered terminal.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TerminalInfo {
    pub site: String,
    pub terminal: String,
    /// Whether it holds a credential (registered), rather than only legacy writer tokens.
    pub registered: bool,
    pub registered_at: Option<String>,
    pub last_ticket_number: i64,
    /// The venue's name, as players know it (a claim for a lost ticket finds it by this).
    #[serde(default)]
    pub venue: Option<String>,
}

/// A terminal to register.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RegisterTerminal {
    /// Six digits.
    pub site: String,
    /// Three digits.
    pub terminal: String,
    /// The venue's name, as players know it ("Civic Club"): what a player tells of where a
    /// lost ticket was bought.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    pub reason: String,
}

/// A terminal's credential, shown once: it goes in the terminal's config.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TerminalCredential {
    pub site: String,
    pub terminal: String,
    pub credential: String,
}

/// What a supervisor's approval at that moment lets a writer do to one ticket.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum OverrideAction {
    /// Read another site's ticket in detail (and reprint it).
    Check,
    Cancel,
    /// Pay it (another site's, or above the writer's payout authority); also as a voucher.
    Pay,
    /// Tender it (its winnings) for a sale.
    Tender,
    /// Pay a voucher out in cash (another site's, or above the writer's payout authority): the
    /// request's `serial` is then the voucher's code.
    CashOut,
}

impl OverrideAction {
    pub const ALL: &'static [OverrideAction] = &[
        OverrideAction::Check,
        OverrideAction::Cancel,
        OverrideAction::Pay,
        OverrideAction::Tender,
        OverrideAction::CashOut,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OverrideAction::Check => "check",
            OverrideAction::Cancel => "cancel",
            OverrideAction::Pay => "pay",
            OverrideAction::Tender => "tender",
            OverrideAction::CashOut => "cash_out",
        }
    }

    pub fn parse(s: &str) -> Option<OverrideAction> {
        OverrideAction::ALL
            .iter()
            .copied()
            .find(|a| a.as_str() == s)
    }
}

/// A supervisor approving, at the writer's counter, one action on one ticket: the supervisor
/// signs on with password and TOTP code inside the request. The writer's own session is the
/// bearer token.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct OverrideRequest {
    pub action: OverrideAction,
    /// The ticket's serial; for `cash_out`, the voucher's code.
    pub serial: String,
    pub supervisor: SignOn,
    /// 1 to 500 characters.
    pub reason: String,
}

/// The approval granted: the writer's retried request carries `grant` in the header
/// `X-Keno-Override`; it is good once, for this action on this ticket, until `expires_at`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OverrideGrant {
    pub grant: String,
    pub action: OverrideAction,
    pub serial: String,
    pub supervisor_id: String,
    pub supervisor_name: String,
    pub expires_at: String,
}

/// The header a writer's request carries a supervisor's approval in.
pub const OVERRIDE_HEADER: &str = "X-Keno-Override";

/// A shift opened at the writer's terminal with its float.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct OpenShift {
    pub float_cents: i64,
}

/// A shift closed with the cash counted in the drawer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CloseShift {
    pub counted_cents: i64,
}

/// A supervisor signing off a shift's over/short.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SignOffShift {
    pub reason: String,
}

/// The cash a shift's drawer took and gave, by kind, in cents.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DrawerCash {
    pub sales_cash_cents: i64,
    pub voucher_deposits_cents: i64,
    pub tender_change_cents: i64,
    pub refunds_cents: i64,
    pub prizes_cash_cents: i64,
    pub voucher_cash_outs_cents: i64,
}

/// Where a shift stands.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShiftState {
    Open,
    /// Closed with an over/short beyond the tolerance, waiting for a supervisor.
    AwaitingSignOff,
    Closed,
}

/// A writer's shift at a terminal, open or closed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Shift {
    pub id: i64,
    pub state: ShiftState,
    pub staff_id: String,
    pub writer: String,
    pub site: String,
    pub terminal: String,
    pub keno_day: String,
    pub opened_at: String,
    pub float_cents: i64,
    pub cash: DrawerCash,
    /// What the drawer should hold now (open) or held at the close.
    pub expected_cents: i64,
    pub closed_at: Option<String>,
    pub counted_cents: Option<i64>,
    /// Counted less expected: positive over, negative short.
    pub over_short_cents: Option<i64>,
    pub signed_off_by: Option<String>,
    /// The supervisor who signed it off, by name, for people.
    #[serde(default)]
    pub signed_off_by_name: Option<String>,
    pub signed_off_at: Option<String>,
    pub sign_off_reason: Option<String>,
}

/// A major prize paid by hand (rule 1(h): $200 or more): who took it and the identity document
/// shown; a cheque's number (rule 12.2).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct HandPay {
    pub claimant_name: String,
    /// e.g. "driver licence", "passport".
    pub id_kind: String,
    pub id_number: String,
    /// The cheque's number, when a major prize is paid by cheque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cheque_number: Option<String>,
}

/// The body of a payment (optional: a ticket without a major prize needs none).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PayRequest {
    /// Required when the ticket holds a major prize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_pay: Option<HandPay>,
}

impl From<keno_core::ShiftState> for ShiftState {
    fn from(s: keno_core::ShiftState) -> ShiftState {
        match s {
            keno_core::ShiftState::Open => ShiftState::Open,
            keno_core::ShiftState::AwaitingSignOff => ShiftState::AwaitingSignOff,
            keno_core::ShiftState::Closed => ShiftState::Closed,
        }
    }
}

/// A count of things and their cents.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Tally {
    pub count: i64,
    pub cents: i64,
}

/// A count and cents of one kind: a bet type, a voucher's source.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KindTally {
    pub kind: String,
    pub count: i64,
    pub cents: i64,
}

/// The tickets a shift paid by one method (as stored: `cash`, `cash_and_cheque`, `voucher`...),
/// what they were paid and how much of it left the drawer in cash (rule 12.2).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PayoutTally {
    pub method: String,
    pub count: i64,
    pub cents: i64,
    pub cash_cents: i64,
}

/// A shift's report: the shift and what its writer did at the terminal in it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ShiftReport {
    pub shift: Shift,
    /// Tickets sold, by bet type: their totals, however paid.
    pub sales: Vec<KindTally>,
    pub sales_total: Tally,
    /// What vouchers and winning tickets covered of those sales (rule 6.1); the rest was cash.
    pub tendered_cents: i64,
    /// Cancellations by this writer (rule 8) and their refunds, in cash.
    pub cancellations: Tally,
    /// Tickets paid by this writer, by method.
    pub payouts: Vec<PayoutTally>,
    /// Vouchers issued by this writer, by source: `deposit` (cash in, rule 1(n)(i)), `ticket`
    /// (a prize paid as a voucher, 1(n)(ii)), `change` (a tendered ticket's change, 6.1).
    pub vouchers_issued: Vec<KindTally>,
    /// Vouchers cashed out by this writer.
    pub vouchers_cashed: Tally,
    /// The name of the supervisor who signed the shift off, if one did.
    pub signed_off_by_name: Option<String>,
}
