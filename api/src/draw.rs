//! The ball draw on the wire (rules 9.3, 10): the balls a device or a supervisor enters, the
//! faults and corrections of rule 10, the ball devices and their holds, and a game's draw
//! record. What a ball device and the supervisor's console send and read.

use serde::{Deserialize, Serialize};

use crate::games::Game;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Ball {
    /// The number on the ball, 1 to 80.
    pub number: i64,
    /// The draw of the game this ball belongs to (`draw_attempt`): a device that gives it is
    /// told `draw_changed` when the draw was voided meanwhile, instead of starting the new
    /// draw with a ball of the void one (rule 10.2).
    pub attempt: Option<i64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BallTaken {
    pub game: i64,
    /// 1 to 20: the ball's place in the draw.
    pub position: usize,
    pub number: u8,
    /// drawing, or drawn after the 20th ball.
    pub state: String,
    /// The numbers drawn so far, in order.
    pub drawn: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Fewer than 80 balls in the device at the start of the draw (rule 10.2).
    ShortOfBalls,
    /// A ball broke and a piece of it was drawn (rule 10.4(a)); give its `number`.
    BrokenBall,
    /// Drawn balls fell back into the device before the draw was complete (rule 10.4(b)).
    FallBack,
    /// A ball or balls spilled from the device (rule 10.4(c)).
    Spill,
    /// The device stopped during the draw (rule 10.4(d)).
    Stoppage,
    /// No functional device is available: the game is drawn by hand (rule 10.4(d), second
    /// sentence). A supervisor's report.
    NoDevice,
}

impl FaultKind {
    /// Every kind, in the order declared.
    pub const ALL: &'static [FaultKind] = &[
        FaultKind::ShortOfBalls,
        FaultKind::BrokenBall,
        FaultKind::FallBack,
        FaultKind::Spill,
        FaultKind::Stoppage,
        FaultKind::NoDevice,
    ];

    /// The kind a name gives (`broken_ball`), as typed at a console.
    pub fn parse(name: &str) -> Option<FaultKind> {
        FaultKind::ALL.iter().copied().find(|k| k.as_str() == name)
    }

    /// The core's fault: what it does to the draw and in which states it can happen.
    pub fn core(self) -> keno_core::FaultKind {
        match self {
            FaultKind::ShortOfBalls => keno_core::FaultKind::ShortOfBalls,
            FaultKind::BrokenBall => keno_core::FaultKind::BrokenBall,
            FaultKind::FallBack => keno_core::FaultKind::FallBack,
            FaultKind::Spill => keno_core::FaultKind::Spill,
            FaultKind::Stoppage => keno_core::FaultKind::Stoppage,
            FaultKind::NoDevice => keno_core::FaultKind::NoDevice,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.core().as_str()
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct FaultReport {
    pub kind: FaultKind,
    /// The broken ball's number (`broken_ball` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<i64>,
    /// The device at fault, when a supervisor reports it and no ball of the draw says which.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The draw (`draw_attempt`) the fault happened in: a report sent again after a lost answer
    /// is refused as `draw_changed` instead of voiding the next draw too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<i64>,
    /// What happened, for the inspectors.
    pub reason: String,
}

// The name is the server's record's, kept so that the published schema keeps its name.
/// A recorded fault.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FaultRow {
    pub id: i64,
    pub game: i64,
    /// The draw of the game the fault happened in.
    pub attempt: i32,
    pub kind: String,
    pub number: Option<i32>,
    pub device_id: Option<String>,
    pub reason: String,
    /// Who reported it.
    pub principal_id: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FaultRecorded {
    pub fault: FaultRow,
    pub recorded_at: String,
    /// Whether the device is now out of service (rule 10.4(a), (c)).
    pub device_out_of_service: bool,
    /// The game after the fault.
    pub game: Game,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CorrectionRequest {
    /// The place in the draw (1 to 20) of the number to correct.
    pub position: i64,
    /// The number on the ball.
    pub number: i64,
    pub reason: String,
}

/// A correction as the API shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Correction {
    pub id: i64,
    pub game: i64,
    pub attempt: i32,
    pub position: i32,
    pub old_number: i32,
    pub new_number: i32,
    pub reason: String,
    /// pending (waiting for an approval) | applied | rejected | lapsed (the draw changed)
    pub state: String,
    pub requested_by: String,
    pub requested_at: String,
    pub supervisor: Option<String>,
    pub supervisor_at: Option<String>,
    pub inspector: Option<String>,
    pub inspector_at: Option<String>,
    pub closed_by: Option<String>,
    pub closed_at: Option<String>,
    pub close_reason: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RejectRequest {
    pub reason: String,
}

/// A hold on a device, as the API shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Hold {
    pub id: i64,
    pub fault: i64,
    /// broken_ball | spill | stoppage
    pub fault_kind: String,
    /// The first game the device may not draw.
    pub blocks_from_game: i64,
    pub opened_at: String,
    pub supervisor: Option<String>,
    pub supervisor_at: Option<String>,
    pub supervisor_note: Option<String>,
    pub inspector: Option<String>,
    pub inspector_at: Option<String>,
    pub inspector_note: Option<String>,
    pub returned_at: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Device {
    pub id: String,
    pub name: String,
    /// Whether no hold is open on it.
    pub in_service: bool,
    /// Its holds, open ones first, then the last returned ones.
    pub holds: Vec<Hold>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReturnRequest {
    /// What was rectified or replaced, and seen by whom: recorded with the approval.
    pub note: String,
    /// Approve only the hold of this fault (default: every open hold on the device, as the
    /// approver sees them in `GET /devices/{id}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<i64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BallEntry {
    pub position: i32,
    pub number: i32,
    pub drawn_at: String,
    /// The device or supervisor that entered it (none for the RNG).
    pub entered_by: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VoidedBall {
    pub attempt: i32,
    pub position: i32,
    pub number: i32,
    pub drawn_at: String,
    pub entered_by: Option<String>,
    /// The fault that voided it.
    pub fault: i64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Fault {
    #[serde(flatten)]
    pub row: FaultRow,
    pub recorded_at: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DrawRecord {
    pub game: Game,
    /// The official record: the standing balls of the current draw (rule 10.1).
    pub balls: Vec<BallEntry>,
    pub voided: Vec<VoidedBall>,
    pub faults: Vec<Fault>,
    pub corrections: Vec<Correction>,
}
