//! Tickets on the wire: a sale as a writer terminal sends it (`POST /api/v1/tickets` and
//! `/tickets/quote`), and the ticket, its results, its payment and its cancellation as the
//! server answers them.
//!
//! The requests keep `deny_unknown_fields`: a misspelt field is refused, never ignored.

use keno_core::{Bet, ScheduleId, SetMode};
use serde::{Deserialize, Serialize};

use crate::refusal::RefusalCode;
use crate::set_bets::{SetBetMode, SetBetRef};

/// Most tenders on one sale.
pub const MAX_TENDERS: usize = 10;

/// The schedule a ticket is entered in (rule 18).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    #[default]
    Standard,
    Special1,
    Special2,
    Special3,
    Jackpot,
}

impl From<Schedule> for ScheduleId {
    fn from(s: Schedule) -> ScheduleId {
        match s {
            Schedule::Standard => ScheduleId::Standard,
            Schedule::Special1 => ScheduleId::Special1,
            Schedule::Special2 => ScheduleId::Special2,
            Schedule::Special3 => ScheduleId::Special3,
            Schedule::Jackpot => ScheduleId::Jackpot,
        }
    }
}

impl From<ScheduleId> for Schedule {
    fn from(s: ScheduleId) -> Schedule {
        match s {
            ScheduleId::Standard => Schedule::Standard,
            ScheduleId::Special1 => Schedule::Special1,
            ScheduleId::Special2 => Schedule::Special2,
            ScheduleId::Special3 => Schedule::Special3,
            ScheduleId::Jackpot => Schedule::Jackpot,
        }
    }
}

impl Schedule {
    /// The name on the wire (`standard`, `special1`, ...).
    pub fn as_str(self) -> &'static str {
        ScheduleId::from(self).key()
    }

    /// The schedule a name gives, as typed at a terminal or stored in a row.
    pub fn parse(name: &str) -> Option<Schedule> {
        [
            Schedule::Standard,
            Schedule::Special1,
            Schedule::Special2,
            Schedule::Special3,
            Schedule::Jackpot,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
    }
}

/// The bet of a sale (`shared/API.md`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum BetRequest {
    /// 1 to 15 numbers chosen by the player (rule 6.3(f)).
    Standard { spots: Vec<u8> },
    /// The terminal picks `count` numbers (rule 6.3(b)).
    QuickPick { count: u8 },
    /// The terminal picks how many numbers and which (rule 6.3(c)).
    MysteryQuickPick,
    /// Groups of numbers (a group of one is a king); for each k in `combine`, every union of
    /// k groups is one way (rules 5.5(b), 6.3(g)).
    Way {
        groups: Vec<Vec<u8>>,
        combine: Vec<u8>,
    },
    /// A set from the catalogue (`GET /api/v1/set-bets`, rule 6.3(h)): `fixed` plays its
    /// numbers, `random` numbers of the same shape (the same group sizes and combinations)
    /// picked by the server. Priced, limited and settled as the way ticket it plays; the ticket
    /// records the numbers played and the set.
    SetBet { set: i64, mode: SetBetMode },
}

impl BetRequest {
    /// The catalogue set a set bet names.
    pub fn set_id(&self) -> Option<i64> {
        match self {
            BetRequest::SetBet { set, .. } => Some(*set),
            _ => None,
        }
    }

    /// The bet for the core. A set bet's set is looked up in the catalogue by `catalogue` (its
    /// groups and combinations, `None` when there is no such set), so the server and the fuzz
    /// target build the core's bet the same way.
    pub fn to_bet(
        &self,
        catalogue: impl FnOnce(i64) -> Option<(Vec<Vec<u8>>, Vec<u8>)>,
    ) -> Option<Bet> {
        Some(match self.clone() {
            BetRequest::Standard { spots } => Bet::Standard { spots },
            BetRequest::QuickPick { count } => Bet::QuickPick { count },
            BetRequest::MysteryQuickPick => Bet::MysteryQuickPick,
            BetRequest::Way { groups, combine } => Bet::Way { groups, combine },
            BetRequest::SetBet { set, mode } => {
                let (groups, combine) = catalogue(set)?;
                Bet::SetBet {
                    groups,
                    combine,
                    mode: SetMode::from(mode),
                }
            }
        })
    }
}

/// The header a payment, a cancellation, a cash-out and a claim's payment carry their request
/// id in (1 to 100 characters, chosen by the client): done once, a retry answered with the
/// first outcome.
pub const REQUEST_ID_HEADER: &str = "X-Keno-Request-Id";

/// A sale (`shared/API.md`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SaleRequest {
    /// Unique per sale, chosen by the terminal; a retry with the same id sells nothing twice.
    pub request_id: String,
    pub bet: BetRequest,
    #[serde(default)]
    pub schedule: Schedule,
    pub amount_per_way_cents: u64,
    /// Consecutive games from the next game open for sale (Keno To Go from 50).
    #[serde(default = "one")]
    pub games: u32,
    /// What pays for it besides cash (rule 6.1): `{"voucher": CODE}`, `{"ticket": SERIAL}`, or a
    /// list of them applied in order. Whatever they leave of the total is paid in cash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tender: Option<Tenders>,
    /// Rule 5.4: the SHA-256 (64 lowercase hex digits) of the scanned entry form the sale was
    /// read from, kept with the ticket so the form the writer retains can be matched to it.
    /// Absent for a sale keyed in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_form_sha256: Option<String>,
}

fn one() -> u32 {
    1
}

/// One tender: `{"voucher": CODE}` (with `amount_cents` to spend exactly that much of it) or
/// `{"ticket": SERIAL}` (a winning receipt ticket's winnings).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Tender {
    /// A voucher's code: it pays what the sale still needs, up to its balance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher: Option<String>,
    /// A winning ticket's serial: paid whole; what it won beyond the sale comes back as a
    /// new voucher (`change_voucher`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    /// With `voucher`: spend exactly this much of it (refused if it has less, or if the sale
    /// needs less).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount_cents: Option<i64>,
}

impl Tender {
    /// A voucher's code, spent up to what the sale needs or exactly `amount_cents`.
    pub fn voucher(code: &str, amount_cents: Option<i64>) -> Tender {
        Tender {
            voucher: Some(code.to_string()),
            amount_cents,
            ..Tender::default()
        }
    }

    /// A winning ticket's serial.
    pub fn ticket(serial: &str) -> Tender {
        Tender {
            ticket: Some(serial.to_string()),
            ..Tender::default()
        }
    }
}

/// A sale's `tender`: one tender, or a list applied in order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum Tenders {
    One(Tender),
    Many(Vec<Tender>),
}

impl Tenders {
    /// The tenders in the order they are applied.
    pub fn as_slice(&self) -> &[Tender] {
        match self {
            Tenders::One(t) => std::slice::from_ref(t),
            Tenders::Many(ts) => ts,
        }
    }
}

/// What one tender covered.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TenderLine {
    /// The voucher's code, for a voucher.
    pub voucher: Option<String>,
    /// The winning ticket's serial, for a ticket.
    pub ticket: Option<String>,
    /// What it paid of the ticket total.
    pub covered_cents: i64,
    /// A voucher: what is left on it after this sale. A ticket: 0 (it is paid whole).
    pub remaining_cents: i64,
    /// A ticket: what it won beyond what it covered (returned in `change_voucher`).
    pub change_cents: i64,
}

/// How a sale was paid (rule 6.1).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SalePayment {
    /// What each tender covered, in the order tendered (none for a cash sale).
    pub tenders: Vec<TenderLine>,
    /// The tenders together.
    pub tendered_cents: i64,
    /// The rest of the ticket total: the cash the writer takes.
    pub cash_cents: i64,
    /// Winnings of tendered tickets beyond the sale, returned to the player as a new voucher.
    pub change_cents: i64,
    /// That voucher's code (none in a quote, or without change).
    pub change_voucher: Option<String>,
}

impl SalePayment {
    /// A sale paid in cash.
    pub fn cash(total_cents: i64) -> SalePayment {
        SalePayment {
            tenders: Vec::new(),
            tendered_cents: 0,
            cash_cents: total_cents,
            change_cents: 0,
            change_voucher: None,
        }
    }
}

/// One line of the receipt's WAYS SPOTS AMOUNT table ("1/04 $3").
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WaysLine {
    pub count: u64,
    pub spots: u8,
    /// The schedule these ways are settled under (a standard 6- or 8-spot way plays Special 1).
    pub plays_as: Schedule,
}

/// A ticket as the API shows it (`shared/API.md`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Ticket {
    /// 20 digits, the last a check digit: unguessable (63 random bits).
    pub serial: String,
    /// Counts up per terminal.
    pub ticket_number: i64,
    pub site: String,
    pub terminal: String,
    /// The operator (keno writer) who sold it.
    pub writer: String,
    pub issued_at: String,
    pub keno_day: String,
    /// standard | quick_pick | mystery_quick_pick | way | set_bet
    pub bet_type: String,
    pub schedule: Schedule,
    /// The numbers marked, in groups (one group unless a way ticket).
    pub groups: Vec<Vec<u8>>,
    pub combine: Vec<u8>,
    pub ways: Vec<WaysLine>,
    pub amount_per_way_cents: i64,
    pub first_game: i64,
    pub last_game: i64,
    pub games: i32,
    /// Games charged after the multi-game discount (rule 6.2(a),(b)).
    pub charged_games: i32,
    pub game_cost_cents: i64,
    pub total_cents: i64,
    /// active | cancelled | paid
    pub status: String,
    /// Games cancelled and refunded (rule 8).
    pub cancelled_games: Vec<i64>,
    pub refund_cents: i64,
    pub cancelled_at: Option<String>,
    pub paid_cents: i64,
    pub paid_at: Option<String>,
    /// The principal who paid it.
    pub paid_by: Option<String>,
    /// cash | cheque | voucher (paid as a voucher) | tender (tendered for another sale) |
    /// claim_cheque (by cheque, on an approved Unclaimed Prize Claim Form) | cash_and_cheque,
    /// voucher_and_cheque (in parts: the major prizes by cheque, rule 12.2)
    pub pay_method: Option<String>,
    pub request_id: String,
    /// The catalogue set a set bet was sold from (its `groups` are the numbers played); null
    /// for other bets.
    pub set_bet: Option<SetBetRef>,
    /// Keno To Go (rule 1(f)): 50 or more consecutive games, as the rule set it was sold under
    /// counts them (`keno_to_go_from`). Absent from a server older than this field.
    #[serde(default)]
    pub keno_to_go: Option<bool>,
    /// Rule 5.4: the SHA-256 of the scanned entry form the ticket was sold from; absent for a
    /// ticket keyed in (and from a server older than this field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_form_sha256: Option<String>,
}

/// A ticket sold, and how it was paid.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SoldTicket {
    #[serde(flatten)]
    pub ticket: Ticket,
    pub payment: SalePayment,
}

/// What a sale would cost, priced by the rules as the sale would be (rule 6.2).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Quote {
    pub ways: Vec<WaysLine>,
    pub amount_per_way_cents: i64,
    pub games: i32,
    pub charged_games: i32,
    pub game_cost_cents: i64,
    pub total_cents: i64,
    /// How the `tender` would pay it now (nothing is spent or held): what each tender would
    /// cover, the cash to take and the change.
    pub payment: SalePayment,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WayResult {
    pub numbers: Vec<u8>,
    pub spots: u8,
    pub catch: u8,
    pub prize_cents: u64,
    /// Reduced by pro-rating (rules 12.3-12.5).
    pub prorated: bool,
    /// Won (a share of) the jackpot pool (rule 12.6).
    pub jackpot: bool,
    /// Bonus prizes won, as offered (rule 6.3(e)). They are part of the way's prize: added to
    /// the schedule prize before the per-way cap and pro-rating, so `prize_cents` includes them.
    pub bonus_cents: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GameResult {
    pub game: i64,
    /// The game's state; ways and prizes are given once it is settled.
    pub state: String,
    pub ways: Vec<WayResult>,
    pub prize_cents: u64,
    /// The wager refunded because the game was invalidated (general rule 18.2).
    pub refund_cents: u64,
    /// The ticket's wagers were voided (rule 17.2) before this game was settled: it took no
    /// part in it, and has no ways or prize here.
    #[serde(default)]
    pub voided: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TicketDetail {
    #[serde(flatten)]
    pub ticket: Ticket,
    pub results: Vec<GameResult>,
    /// Won in the games settled so far.
    pub won_cents: u64,
    /// Refunded for games invalidated (general rule 18.2).
    pub invalidated_refund_cents: u64,
    /// What a pay would pay now: all the ticket's games are settled and it is not yet paid.
    pub payable_cents: u64,
    /// Some of the prizes are major prizes (rule 1(h)): paid by cheque (rule 12.2).
    pub cheque: bool,
    /// Why a pay would refuse the ticket now: the refusal's code (`not_settled`, `no_prize`,
    /// `already_paid`, `cancelled`, `claim_required`); null when it would pay `payable_cents`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub not_payable: Option<RefusalCode>,
    /// How the sale was paid: cash, vouchers, winning tickets (rule 6.1).
    pub payment: SalePayment,
    /// Paid as a voucher (`pay_method = "voucher"`): its code.
    pub paid_as_voucher: Option<String>,
    /// Tendered for a sale (`pay_method = "tender"`): the ticket it paid for.
    pub tendered_for: Option<String>,
    /// How it was paid, part by part (rule 12.2: the minor wins in cash, the major prizes by
    /// cheque or in cash); empty while unpaid.
    #[serde(default)]
    pub payment_parts: Vec<PaymentPart>,
    /// A major prize paid by hand: the claimant, the ID shown, the cheque's number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_pay: Option<crate::staff::HandPay>,
    /// Every game of the ticket, played then cancelled, with what it came to and when it is
    /// collected. Absent from a server older than this field.
    #[serde(default)]
    pub lines: Vec<GameLine>,
    /// What cancelling it now would do (rule 8): the games cancelled and the refund, as the
    /// cancellation itself decides; null when a cancellation would be refused.
    #[serde(default)]
    pub cancel: Option<CancelPreview>,
}

/// A cancellation as it would be made now (rule 8).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CancelPreview {
    pub from_game: i64,
    pub to_game: i64,
    /// The whole ticket: it becomes `cancelled`; otherwise the games played stand.
    pub whole: bool,
    pub refund_cents: u64,
}

/// What one game of a ticket came to (rules 8, 11.5, 13.1, 17.2; general rule 18.2): keno-core's
/// `standing`, the same for the writer, the check page and a reprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum GameStanding {
    /// Not drawn yet: on sale, closed, or not opened.
    ToCome,
    /// Being drawn, or drawn and not yet settled.
    Drawing,
    /// Settled; nothing won.
    NoPrize,
    /// Settled with a prize (`prize_cents`).
    Won,
    /// Invalidated (general rule 18.2): its wager (`refund_cents`) comes back with the ticket's
    /// payment.
    Invalidated,
    /// Cancelled (rule 8), never played; the cancellation refunded it.
    Cancelled,
    /// The ticket was voided (rule 17.2) before this game was settled: it takes no part.
    Excluded,
}

/// When a game's prize or refund reaches the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Collect {
    /// A writer pays it today.
    Now,
    /// Rule 11.5: with the ticket's one payment, after game `after_game`, its last.
    AfterGame,
    /// Paid, with the ticket (`paid_at`, `pay_method`).
    Paid,
    /// Rule 13.1: more than twelve months on, by an Unclaimed Prize Claim Form.
    ByClaim,
    /// Rule 17.2: the ticket was voided; its prizes are withheld.
    Withheld,
}

/// One game of a ticket and what it came to.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GameLine {
    pub game: i64,
    pub standing: GameStanding,
    /// What it won (`won`); 0 otherwise.
    pub prize_cents: u64,
    /// What comes back for it (`invalidated`, `cancelled`). Null for a game cancelled with a
    /// whole Keno To Go ticket (rule 1(f)): the refund was the ticket's, no game's own share.
    pub refund_cents: Option<u64>,
    /// When the prize or refund is collected (`won`, `invalidated`); null otherwise.
    pub collect: Option<Collect>,
    /// `collect = after_game`: the game after which the ticket is paid.
    pub after_game: Option<i64>,
}

impl GameLine {
    /// Game numbers past `i64::MAX` (never stored) are refused.
    pub fn new(
        game: u64,
        standing: keno_core::GameStanding,
    ) -> Result<GameLine, std::num::TryFromIntError> {
        use keno_core::GameStanding as S;
        let (kind, prize_cents, refund_cents, collect) = match standing {
            S::ToCome => (GameStanding::ToCome, 0, None, None),
            S::Drawing => (GameStanding::Drawing, 0, None, None),
            S::NoPrize => (GameStanding::NoPrize, 0, None, None),
            S::Excluded => (GameStanding::Excluded, 0, None, None),
            S::Won {
                prize_cents,
                collect,
            } => (GameStanding::Won, prize_cents, None, Some(collect)),
            S::Invalidated {
                refund_cents,
                collect,
            } => (
                GameStanding::Invalidated,
                0,
                Some(refund_cents),
                Some(collect),
            ),
            S::Cancelled { refund_cents } => (GameStanding::Cancelled, 0, refund_cents, None),
        };
        let after_game = match collect {
            Some(keno_core::Collect::AfterGame(n)) => Some(i64::try_from(n)?),
            _ => None,
        };
        Ok(GameLine {
            game: i64::try_from(game)?,
            standing: kind,
            prize_cents,
            refund_cents,
            collect: collect.map(|c| match c {
                keno_core::Collect::Now => Collect::Now,
                keno_core::Collect::AfterGame(_) => Collect::AfterGame,
                keno_core::Collect::Paid => Collect::Paid,
                keno_core::Collect::ByClaim => Collect::ByClaim,
                keno_core::Collect::Withheld => Collect::Withheld,
            }),
            after_game,
        })
    }
}

/// What a player may see of a ticket (the public check).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TicketCheck {
    pub serial: String,
    pub bet_type: String,
    pub schedule: Schedule,
    pub groups: Vec<Vec<u8>>,
    pub ways: Vec<WaysLine>,
    pub amount_per_way_cents: i64,
    pub first_game: i64,
    pub last_game: i64,
    pub games: i32,
    pub status: String,
    pub results: Vec<GameResult>,
    pub won_cents: u64,
    pub payable_cents: u64,
    /// Why a writer would not pay it now: the refusal's code (`not_settled`, `no_prize`,
    /// `already_paid`, `cancelled`, `claim_required`: file an Unclaimed Prize Claim Form);
    /// null when it would pay `payable_cents`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub not_payable: Option<RefusalCode>,
    pub paid_cents: i64,
    /// The catalogue set a set bet was sold from; null for other bets.
    pub set_bet: Option<SetBetRef>,
    /// Games cancelled and refunded (rule 8): not in `results`, never played. Absent from a
    /// server older than this field.
    #[serde(default)]
    pub cancelled_games: Vec<i64>,
    /// What the cancellation refunded for `cancelled_games`.
    #[serde(default)]
    pub refund_cents: i64,
    /// How it was paid, part by part (rule 12.2); empty while unpaid.
    #[serde(default)]
    pub payment_parts: Vec<PaymentPart>,
    /// When it was paid (RFC 3339); null while unpaid. Absent from a server older than this
    /// field.
    #[serde(default)]
    pub paid_at: Option<String>,
    /// How it was paid (`Ticket::pay_method`); null while unpaid.
    #[serde(default)]
    pub pay_method: Option<String>,
    /// Every game of the ticket, played then cancelled, with what it came to and when it is
    /// collected. Absent from a server older than this field.
    #[serde(default)]
    pub lines: Vec<GameLine>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Payment {
    pub paid_cents: i64,
    /// cash | cheque (shared/API.md): `cheque` when any part is paid by cheque, its `parts` saying
    /// how much (rule 12.2: the minor wins in cash, the major prizes by cheque unless paid in
    /// cash too). A ticket's `pay_method` records the payment whole: `cash`, `cheque`,
    /// `cash_and_cheque`, `voucher`, `voucher_and_cheque`, `tender` or `claim_cheque`.
    pub method: String,
    /// What was paid how: a cash part and a cheque part for the major prizes (rule 12.2).
    #[serde(default)]
    pub parts: Vec<PaymentPart>,
}

/// One part of a payment.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PaymentPart {
    /// cash | cheque (or the one way a payment not made at a terminal was made)
    pub method: String,
    pub cents: i64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Cancellation {
    pub refund_cents: i64,
    pub games_cancelled: Vec<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sale_keeps_its_wire_shape() {
        let sale: SaleRequest = serde_json::from_str(
            r#"{"request_id": "r1", "bet": {"type": "standard", "spots": [1, 2]},
                "amount_per_way_cents": 100}"#,
        )
        .unwrap();
        assert_eq!(sale.schedule, Schedule::Standard);
        assert_eq!(sale.games, 1);
        assert_eq!(
            serde_json::to_string(&sale).unwrap(),
            r#"{"request_id":"r1","bet":{"type":"standard","spots":[1,2]},"schedule":"standard","amount_per_way_cents":100,"games":1}"#
        );
        let unknown = r#"{"request_id": "r", "bet": {"type": "mystery_quick_pick"},
            "amount_per_way_cents": 1, "colour": "red"}"#;
        assert!(serde_json::from_str::<SaleRequest>(unknown).is_err());
        let tender: Tenders = serde_json::from_str(r#"{"ticket": "1"}"#).unwrap();
        assert_eq!(tender.as_slice(), &[Tender::ticket("1")]);
        assert_eq!(
            serde_json::to_string(&Tender::voucher("2", Some(5))).unwrap(),
            r#"{"voucher":"2","amount_cents":5}"#
        );
    }

    #[test]
    fn schedules_read_back_by_name() {
        for s in [Schedule::Standard, Schedule::Special3, Schedule::Jackpot] {
            assert_eq!(Schedule::parse(s.as_str()), Some(s));
            assert_eq!(
                serde_json::to_value(s).unwrap(),
                serde_json::Value::from(s.as_str())
            );
        }
        assert_eq!(Schedule::parse("special4"), None);
    }

    /// The fuzz target (`fuzz/fuzz_targets/ticket_request.rs`) reads this very type: its seeds
    /// must stay sales the server reads, or the fuzzer starts from refusals only.
    #[test]
    fn the_fuzz_seeds_are_sales() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/ticket_request");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let sale: Result<SaleRequest, _> = serde_json::from_str(&text);
            assert!(sale.is_ok(), "{}: {sale:?}", path.display());
            read += 1;
        }
        assert!(read >= 8, "{read} seeds in {}", dir.display());
    }
}
