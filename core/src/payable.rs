//! What a ticket pays, and how (rules 11.5, 12.2, 13.1; general rule 18.2).
//!
//! A ticket is paid once (11.5), after every game it plays is settled or invalidated: its
//! prizes and the refunds of its invalidated games together, in one payment. At a terminal it
//! is paid in parts ([`Payable::parts`], 12.2): the minor wins and refunds in cash, the major
//! prizes (1(h)) by cheque unless the payer pays them in cash too. It may instead be paid as a
//! voucher or tendered for a sale, but not with a major prize. At a terminal only for twelve
//! months after its last game's Keno Day (13.1); after that by an Unclaimed Prize Claim Form.
//!
//! [`owed`] is what the ticket is owed wherever it is paid (a claim pays it by cheque after the
//! twelve months); [`payable`] is what a terminal pays today. Both take the facts the server
//! reads and return the refusal as a value: the pay, the voucher and the tender refuse with it,
//! and the ticket's view and public check show it (payable or not, and why) from the same call.

use thiserror::Error;

use crate::deadline::{at_a_terminal, terminal_deadline, ClaimRequired};
use crate::keno_day::KenoDay;
use crate::status::{PayMethod, TicketStatus};

/// One game's win of the ticket, as settlement recorded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamePrize {
    pub prize_cents: u64,
    /// Some of it is a major prize (rule 1(h)).
    pub major: bool,
}

/// Whether the ticket's games are over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Played {
    /// Some game from the first to the last played is neither settled nor invalidated yet.
    NotYet,
    /// Every game from the first to the last played is settled or invalidated; the last of
    /// them was of Keno Day `last_keno_day`.
    All { last_keno_day: KenoDay },
}

/// What the server reads of a ticket to pay it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayableFacts {
    pub status: TicketStatus,
    pub first_game: u64,
    /// The last game not cancelled (rule 8.2).
    pub last_played_game: u64,
    pub played: Played,
    /// Its wins, one per game that won something, up to the last played game.
    pub prizes: Vec<GamePrize>,
    /// The refunds of its invalidated games (general rule 18.2), one per game.
    pub refunds_cents: Vec<u64>,
    /// Of the prizes, each major prize (rule 1(h)): a way's win of the major-prize amount or
    /// more, pro-rated or a jackpot share.
    pub major_prizes_cents: Vec<u64>,
}

/// What a ticket pays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Payable {
    /// Prizes and refunds together: what one payment pays.
    pub total_cents: u64,
    /// Of which prizes.
    pub prizes_cents: u64,
    /// Of which the refunds of invalidated games.
    pub refunds_cents: u64,
    /// Some of the prizes is a major prize (rule 1(h)).
    pub major: bool,
    /// Of the prizes, the major prizes: what may be paid by cheque (rule 12.2).
    pub major_cents: u64,
    /// The last Keno Day a terminal may pay it (rule 13.1).
    pub deadline: KenoDay,
    /// Rule 12.2: cheque with a major prize, cash otherwise; [`Payable::as_voucher`],
    /// [`Payable::as_tender`] and [`Payable::by_claim`] change it.
    pub method: PayMethod,
}

/// Why a ticket is not paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum PayRefusal {
    #[error("the ticket has already been paid (rule 11.5)")]
    AlreadyPaid,
    #[error("the ticket was cancelled")]
    Cancelled,
    #[error("the ticket's wagers were voided (rule 17.2): its prizes are withheld")]
    Voided,
    #[error(
        "games {first_game}-{last_game} are not all played and settled (or invalidated) yet; \
         the ticket is paid once, after its last game"
    )]
    NotSettled { first_game: u64, last_game: u64 },
    #[error("the ticket won nothing")]
    NoPrize,
    #[error(transparent)]
    ClaimRequired(#[from] ClaimRequired),
    /// Rule 12.2: a major prize is paid by cheque; `instead` is the way refused.
    #[error(
        "the ticket has a major prize: it is paid by cheque (rule 12.2), not {}",
        not_paid_as(.instead)
    )]
    ChequeOnly { instead: PayMethod },
}

/// How the refusal names the way refused.
fn not_paid_as(method: &PayMethod) -> &'static str {
    match method {
        PayMethod::Tender => "tendered",
        PayMethod::Voucher => "as a voucher",
        PayMethod::Cash => "in cash",
        PayMethod::CashAndCheque => "in cash and by cheque",
        PayMethod::VoucherAndCheque => "as a voucher and by cheque",
        PayMethod::Cheque | PayMethod::ClaimCheque => "by cheque",
    }
}

impl PayRefusal {
    /// The API's machine code (`{"error": code}`).
    pub fn code(&self) -> &'static str {
        match self {
            PayRefusal::AlreadyPaid => "already_paid",
            PayRefusal::Cancelled => "cancelled",
            PayRefusal::Voided => "voided",
            PayRefusal::NotSettled { .. } => "not_settled",
            PayRefusal::NoPrize => "no_prize",
            PayRefusal::ClaimRequired(c) => c.code(),
            PayRefusal::ChequeOnly { .. } => "cheque_only",
        }
    }

    /// The rule this refusal enforces.
    pub fn rule(&self) -> &'static str {
        match self {
            PayRefusal::AlreadyPaid | PayRefusal::NotSettled { .. } => "11.5",
            PayRefusal::Cancelled => "8.1",
            PayRefusal::Voided => "17.2",
            PayRefusal::NoPrize => "11.1",
            PayRefusal::ClaimRequired(c) => c.rule(),
            PayRefusal::ChequeOnly { .. } => "12.2",
        }
    }
}

/// Rules 11.5, 12.2, 18.2: what the ticket is owed, paid wherever: paid already, cancelled,
/// not every game settled or invalidated, or nothing won are refused, in that order. The twelve
/// months of rule 13.1 are not checked: [`payable`] does, for a terminal.
pub fn owed(facts: &PayableFacts) -> Result<Payable, PayRefusal> {
    match facts.status {
        TicketStatus::Paid => return Err(PayRefusal::AlreadyPaid),
        TicketStatus::Cancelled => return Err(PayRefusal::Cancelled),
        // Rule 17.2: a cheating player's prizes are withheld.
        TicketStatus::Voided => return Err(PayRefusal::Voided),
        TicketStatus::Active => {}
    }
    let Played::All { last_keno_day } = facts.played else {
        return Err(PayRefusal::NotSettled {
            first_game: facts.first_game,
            last_game: facts.last_played_game,
        });
    };
    let prizes_cents: u64 = facts.prizes.iter().map(|p| p.prize_cents).sum();
    // General rule 18.2: an invalidated game's wager comes back with the prizes.
    let refunds_cents: u64 = facts.refunds_cents.iter().sum();
    let total_cents = prizes_cents + refunds_cents;
    if total_cents == 0 {
        return Err(PayRefusal::NoPrize);
    }
    let major = facts.prizes.iter().any(|p| p.major);
    // Rule 12.2: the part a cheque may pay. (Every major way is stored with its prize: games
    // settled before ways were marked major or minor stored major ways only.)
    let major_cents = facts
        .major_prizes_cents
        .iter()
        .sum::<u64>()
        .min(prizes_cents);
    Ok(Payable {
        total_cents,
        prizes_cents,
        refunds_cents,
        major,
        major_cents,
        deadline: terminal_deadline(last_keno_day),
        // Rule 12.2.
        method: if major {
            PayMethod::Cheque
        } else {
            PayMethod::Cash
        },
    })
}

/// What a terminal pays for the ticket on Keno Day `today`: [`owed`], within the twelve months
/// of rule 13.1 (refused `claim_required` after them).
pub fn payable(facts: &PayableFacts, today: KenoDay) -> Result<Payable, PayRefusal> {
    let due = owed(facts)?;
    at_a_terminal(due.deadline, today)?;
    Ok(due)
}

/// How the payer pays the major prizes of a ticket paid at a terminal (rule 12.2: "a major
/// prize may be paid by cheque").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MajorPrizesBy {
    #[default]
    Cheque,
    Cash,
}

/// One part of a payment: so much, paid so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PayPart {
    pub method: PayMethod,
    pub cents: u64,
}

impl Payable {
    /// Rule 12.2 (INTERPRETATION, "Cash, and cheque for major prizes only"): a payment at a
    /// terminal in parts: the minor wins and refunds in cash, the major prizes by cheque unless
    /// the payer pays them in cash too. Paid any other way (a voucher, a tender, a claim) it is
    /// one part.
    pub fn parts(&self, majors: MajorPrizesBy) -> Vec<PayPart> {
        if !matches!(self.method, PayMethod::Cash | PayMethod::Cheque) {
            return vec![PayPart {
                method: self.method,
                cents: self.total_cents,
            }];
        }
        let cheque = match majors {
            MajorPrizesBy::Cheque => self.major_cents,
            MajorPrizesBy::Cash => 0,
        };
        [
            (PayMethod::Cash, self.total_cents - cheque),
            (PayMethod::Cheque, cheque),
        ]
        .into_iter()
        .filter(|&(_, cents)| cents > 0)
        .map(|(method, cents)| PayPart { method, cents })
        .collect()
    }

    /// The method a payment in `parts` is stored as: the one method, or the two together.
    pub fn method_of(parts: &[PayPart]) -> PayMethod {
        match parts {
            [one] => one.method,
            _ if parts.iter().any(|p| p.method == PayMethod::Voucher) => {
                PayMethod::VoucherAndCheque
            }
            _ => PayMethod::CashAndCheque,
        }
    }

    /// Paid as a voucher at the player's choice (rule 1(n)(ii)): the minor wins and refunds, with
    /// the major prizes by cheque beside it (rule 12.2). Refused where only major prizes are
    /// owed: there is nothing a voucher may hold.
    pub fn voucher_parts(&self) -> Result<Vec<PayPart>, PayRefusal> {
        let cheque = if self.major { self.major_cents } else { 0 };
        let voucher = self.total_cents - cheque;
        if voucher == 0 {
            return Err(PayRefusal::ChequeOnly {
                instead: PayMethod::Voucher,
            });
        }
        Ok([(PayMethod::Voucher, voucher), (PayMethod::Cheque, cheque)]
            .into_iter()
            .filter(|&(_, cents)| cents > 0)
            .map(|(method, cents)| PayPart { method, cents })
            .collect())
    }

    /// Paid as a voucher instead (rule 1(n)(ii)); not with a major prize (rule 12.2).
    pub fn as_voucher(self) -> Result<Payable, PayRefusal> {
        self.instead(PayMethod::Voucher)
    }

    /// Tendered for a sale (rule 6.1), paid whole; not with a major prize (rule 12.2).
    pub fn as_tender(self) -> Result<Payable, PayRefusal> {
        self.instead(PayMethod::Tender)
    }

    /// Paid on an approved Unclaimed Prize Claim Form: by cheque, whatever it won (rule 13.5).
    pub fn by_claim(self) -> Payable {
        Payable {
            method: PayMethod::ClaimCheque,
            ..self
        }
    }

    fn instead(self, method: PayMethod) -> Result<Payable, PayRefusal> {
        if self.major {
            return Err(PayRefusal::ChequeOnly { instead: method });
        }
        Ok(Payable { method, ..self })
    }
}
