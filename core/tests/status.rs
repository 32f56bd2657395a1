//! Ticket statuses and payment methods as stored (`tickets.status`, `tickets.pay_method`).

use keno_core::{PayMethod, TicketStatus, UnknownPayMethod, UnknownTicketStatus};

#[test]
fn statuses_and_methods_are_the_stored_words() {
    for (s, text) in [
        (TicketStatus::Active, "active"),
        (TicketStatus::Cancelled, "cancelled"),
        (TicketStatus::Paid, "paid"),
    ] {
        assert_eq!(s.as_str(), text);
        assert_eq!(s.to_string(), text);
        assert_eq!(text.parse(), Ok(s));
        assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{text}\""));
        assert_eq!(
            serde_json::from_str::<TicketStatus>(&format!("\"{text}\"")).unwrap(),
            s
        );
    }
    for (m, text) in [
        (PayMethod::Cash, "cash"),
        (PayMethod::Cheque, "cheque"),
        (PayMethod::Voucher, "voucher"),
        (PayMethod::Tender, "tender"),
        (PayMethod::ClaimCheque, "claim_cheque"),
        (PayMethod::CashAndCheque, "cash_and_cheque"),
        (PayMethod::VoucherAndCheque, "voucher_and_cheque"),
    ] {
        assert_eq!(m.as_str(), text);
        assert_eq!(m.to_string(), text);
        assert_eq!(text.parse(), Ok(m));
        assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{text}\""));
        assert_eq!(
            serde_json::from_str::<PayMethod>(&format!("\"{text}\"")).unwrap(),
            m
        );
    }
    assert_eq!(
        "Active".parse::<TicketStatus>(),
        Err(UnknownTicketStatus("Active".into()))
    );
    assert_eq!(
        "check".parse::<PayMethod>(),
        Err(UnknownPayMethod("check".into()))
    );
    assert_eq!(
        "".parse::<PayMethod>().unwrap_err().to_string(),
        "\"\" is not a payment method: cash, cheque, voucher, tender, claim_cheque, \
         cash_and_cheque or voucher_and_cheque"
    );
    assert!(serde_json::from_str::<TicketStatus>("\"void\"").is_err());
}
