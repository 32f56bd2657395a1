//! What a ticket pays, and how (rules 11.5, 12.2, 13.1; general rule 18.2).

use keno_core::{
    owed, payable, ClaimRequired, GamePrize, KenoDay, MajorPrizesBy, PayMethod, PayPart,
    PayRefusal, Payable, PayableFacts, Played, TicketStatus,
};

fn day(text: &str) -> KenoDay {
    text.parse().unwrap()
}

/// A 3-game ticket, games 10-12 all settled on Keno Day 2026-11-23, that won $5 in game 11.
fn won() -> PayableFacts {
    PayableFacts {
        status: TicketStatus::Active,
        first_game: 10,
        last_played_game: 12,
        played: Played::All {
            last_keno_day: day("2026-11-23"),
        },
        prizes: vec![GamePrize {
            prize_cents: 500,
            major: false,
        }],
        refunds_cents: vec![],
        major_prizes_cents: vec![],
    }
}

fn today() -> KenoDay {
    day("2026-11-24")
}

#[test]
fn a_minor_prize_is_paid_in_cash_for_twelve_months() {
    let p = payable(&won(), today()).unwrap();
    assert_eq!(
        p,
        Payable {
            total_cents: 500,
            prizes_cents: 500,
            refunds_cents: 0,
            major: false,
            major_cents: 0,
            deadline: day("2027-11-23"),
            method: PayMethod::Cash,
        }
    );
}

#[test]
fn rule_12_2_a_major_prize_makes_the_whole_payment_a_cheque() {
    let mut f = won();
    f.prizes.push(GamePrize {
        prize_cents: 25_000,
        major: true,
    });
    let p = payable(&f, today()).unwrap();
    assert_eq!(
        (p.total_cents, p.major, p.method),
        (25_500, true, PayMethod::Cheque)
    );
}

#[test]
fn rule_12_2_a_major_prize_is_not_paid_as_a_voucher_nor_tendered() {
    let mut f = won();
    f.prizes[0].major = true;
    let p = payable(&f, today()).unwrap();
    let as_voucher = p.as_voucher().unwrap_err();
    assert_eq!(
        as_voucher,
        PayRefusal::ChequeOnly {
            instead: PayMethod::Voucher
        }
    );
    assert_eq!(
        (as_voucher.code(), as_voucher.rule()),
        ("cheque_only", "12.2")
    );
    assert_eq!(
        as_voucher.to_string(),
        "the ticket has a major prize: it is paid by cheque (rule 12.2), not as a voucher"
    );
    let as_tender = p.as_tender().unwrap_err();
    assert_eq!(as_tender.code(), "cheque_only");
    assert_eq!(
        as_tender.to_string(),
        "the ticket has a major prize: it is paid by cheque (rule 12.2), not tendered"
    );
}

#[test]
fn a_minor_prize_may_be_paid_as_a_voucher_or_tendered() {
    let p = payable(&won(), today()).unwrap();
    let v = p.as_voucher().unwrap();
    assert_eq!((v.method, v.total_cents), (PayMethod::Voucher, 500));
    let t = p.as_tender().unwrap();
    assert_eq!((t.method, t.total_cents), (PayMethod::Tender, 500));
}

#[test]
fn general_rule_18_2_refunds_come_with_the_prizes() {
    let mut f = won();
    f.refunds_cents = vec![333, 334];
    let p = payable(&f, today()).unwrap();
    assert_eq!(
        (p.total_cents, p.prizes_cents, p.refunds_cents),
        (1_167, 500, 667)
    );
}

#[test]
fn a_refund_alone_is_paid_though_nothing_was_won() {
    let mut f = won();
    f.prizes.clear();
    f.refunds_cents = vec![200];
    let p = payable(&f, today()).unwrap();
    assert_eq!(
        (p.total_cents, p.prizes_cents, p.method),
        (200, 0, PayMethod::Cash)
    );
    // A zero prize recorded (a bonus-free way of no value) adds nothing.
    f.prizes.push(GamePrize {
        prize_cents: 0,
        major: false,
    });
    assert_eq!(payable(&f, today()).unwrap().total_cents, 200);
}

#[test]
fn nothing_won_nothing_refunded_is_no_prize() {
    let mut f = won();
    f.prizes = vec![GamePrize {
        prize_cents: 0,
        major: false,
    }];
    let e = payable(&f, today()).unwrap_err();
    assert_eq!(e, PayRefusal::NoPrize);
    assert_eq!(
        (e.code(), e.to_string().as_str()),
        ("no_prize", "the ticket won nothing")
    );
}

#[test]
fn rule_11_5_paid_once() {
    let mut f = won();
    f.status = TicketStatus::Paid;
    let e = payable(&f, today()).unwrap_err();
    assert_eq!((e.code(), e.rule()), ("already_paid", "11.5"));
    assert_eq!(
        e.to_string(),
        "the ticket has already been paid (rule 11.5)"
    );
}

#[test]
fn a_cancelled_ticket_pays_nothing() {
    let mut f = won();
    f.status = TicketStatus::Cancelled;
    let e = payable(&f, today()).unwrap_err();
    assert_eq!((e, e.code()), (PayRefusal::Cancelled, "cancelled"));
}

#[test]
fn paid_after_its_last_game_only() {
    let mut f = won();
    f.played = Played::NotYet;
    let e = payable(&f, today()).unwrap_err();
    assert_eq!(
        e,
        PayRefusal::NotSettled {
            first_game: 10,
            last_game: 12
        }
    );
    assert_eq!(e.code(), "not_settled");
    assert_eq!(
        e.to_string(),
        "games 10-12 are not all played and settled (or invalidated) yet; the ticket is paid \
         once, after its last game"
    );
}

#[test]
fn refusals_come_in_the_servers_order() {
    // Paid before cancelled before not settled before no prize before the twelve months.
    let mut f = won();
    f.prizes.clear();
    f.played = Played::NotYet;
    f.status = TicketStatus::Paid;
    let late = day("2030-01-01");
    assert_eq!(payable(&f, late).unwrap_err().code(), "already_paid");
    f.status = TicketStatus::Active;
    assert_eq!(payable(&f, late).unwrap_err().code(), "not_settled");
    f.played = Played::All {
        last_keno_day: day("2026-11-23"),
    };
    assert_eq!(payable(&f, late).unwrap_err().code(), "no_prize");
    // A major prize past its twelve months: claim_required before cheque_only.
    f.prizes.push(GamePrize {
        prize_cents: 20_000,
        major: true,
    });
    let e = payable(&f, late).and_then(Payable::as_voucher).unwrap_err();
    assert_eq!(e.code(), "claim_required");
}

#[test]
fn rule_13_1_a_terminal_pays_until_the_deadline_then_a_claim_does() {
    let f = won();
    assert!(payable(&f, day("2027-11-23")).is_ok());
    let e = payable(&f, day("2027-11-24")).unwrap_err();
    assert_eq!(
        e,
        PayRefusal::ClaimRequired(ClaimRequired {
            deadline: day("2027-11-23")
        })
    );
    assert_eq!((e.code(), e.rule()), ("claim_required", "13.1"));
    // What the ticket is owed does not lapse: a claim pays it, by cheque (rules 13.4, 13.5).
    let by_claim = owed(&f).unwrap().by_claim();
    assert_eq!(
        (by_claim.total_cents, by_claim.method),
        (500, PayMethod::ClaimCheque)
    );
}

#[test]
fn rule_13_5_a_claim_pays_a_major_prize_by_cheque_too() {
    let mut f = won();
    f.prizes[0].major = true;
    let p = owed(&f).unwrap().by_claim();
    assert_eq!((p.major, p.method.as_str()), (true, "claim_cheque"));
}

#[test]
fn rule_13_1_the_29th_of_february_is_payable_until_the_28th() {
    let mut f = won();
    f.played = Played::All {
        last_keno_day: day("2028-02-29"),
    };
    assert_eq!(owed(&f).unwrap().deadline, day("2029-02-28"));
    assert!(payable(&f, day("2029-02-28")).is_ok());
    assert_eq!(
        payable(&f, day("2029-03-01")).unwrap_err().code(),
        "claim_required"
    );
}

#[test]
fn the_view_shows_payable_or_why_not_from_the_same_call() {
    // What the ticket view and the public check show: payable cents, or the refusal's code and
    // message; never a prize that the pay would refuse.
    let show = |f: &PayableFacts, today: KenoDay| match payable(f, today) {
        Ok(p) => (p.total_cents, p.method.as_str().to_string()),
        Err(why) => (0, why.code().to_string()),
    };
    assert_eq!(show(&won(), today()), (500, "cash".into()));
    assert_eq!(
        show(&won(), day("2028-01-01")),
        (0, "claim_required".into())
    );
}

/// Rule 12.2 as decided: the minor wins (and refunds) in cash, each major prize by cheque or,
/// as the payer chooses, in cash; paid another way, one part.
#[test]
fn rule_12_2_a_payment_is_in_parts_cash_and_a_cheque_for_the_majors() {
    let mut facts = won();
    facts.prizes.push(GamePrize {
        prize_cents: 21_000 + 7_000,
        major: true,
    });
    facts.major_prizes_cents = vec![21_000];
    facts.refunds_cents = vec![100];
    let due = owed(&facts).unwrap();
    assert_eq!(
        (due.total_cents, due.major_cents),
        (500 + 28_000 + 100, 21_000)
    );
    let part = |method, cents| PayPart { method, cents };
    assert_eq!(
        due.parts(MajorPrizesBy::Cheque),
        vec![
            part(PayMethod::Cash, 7_600),
            part(PayMethod::Cheque, 21_000)
        ]
    );
    assert_eq!(
        due.parts(MajorPrizesBy::Cash),
        vec![part(PayMethod::Cash, 28_600)]
    );
    assert_eq!(
        Payable::method_of(&due.parts(MajorPrizesBy::Cheque)),
        PayMethod::CashAndCheque
    );
    assert_eq!(
        Payable::method_of(&due.parts(MajorPrizesBy::Cash)),
        PayMethod::Cash
    );
    // All major: one cheque, as before.
    let mut all = won();
    all.prizes = vec![GamePrize {
        prize_cents: 30_000,
        major: true,
    }];
    all.major_prizes_cents = vec![30_000];
    let due = owed(&all).unwrap();
    assert_eq!(
        due.parts(MajorPrizesBy::Cheque),
        vec![part(PayMethod::Cheque, 30_000)]
    );
    // As a voucher at the player's choice (rule 1(n)(ii)): the minor part; the major by cheque.
    assert_eq!(
        owed(&facts).unwrap().voucher_parts(),
        Ok(vec![
            part(PayMethod::Voucher, 7_600),
            part(PayMethod::Cheque, 21_000)
        ])
    );
    assert_eq!(
        Payable::method_of(&owed(&facts).unwrap().voucher_parts().unwrap()),
        PayMethod::VoucherAndCheque
    );
    all.major_prizes_cents = vec![30_000];
    assert_eq!(
        owed(&all).unwrap().voucher_parts(),
        Err(PayRefusal::ChequeOnly {
            instead: PayMethod::Voucher
        })
    );
    // A claim pays one cheque for all (rule 13.5).
    let claim = owed(&facts).unwrap().by_claim();
    assert_eq!(
        claim.parts(MajorPrizesBy::Cheque),
        vec![part(PayMethod::ClaimCheque, 28_600)]
    );
}
