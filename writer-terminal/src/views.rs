//! The server's answers as the writer reads them, on the counter screen and the command line
//! alike: a checked ticket, recent results, a payment, a cancellation.

use keno_core::Dollars;
use serde_json::Value;

/// How a payment or cancellation reads: the line to show and the slip's rows.
pub type SlipView = fn(&Value) -> (String, Vec<(&'static str, String)>);

fn cents(v: &Value) -> String {
    Dollars(v.as_u64().unwrap_or(0)).to_string()
}

/// A checked ticket: each game's state, catches and prize, what it won and what is payable.
pub fn ticket(t: &Value) -> Vec<String> {
    let mut out = vec![format!(
        "TICKET {}  {}",
        t["serial"].as_str().unwrap_or(""),
        t["status"].as_str().unwrap_or("").to_uppercase()
    )];
    for r in t["results"].as_array().into_iter().flatten() {
        let catches: Vec<String> = r["ways"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|w| format!("{}/{}", w["catch"], w["spots"]))
            .collect();
        let amount = if r["refund_cents"].as_u64().unwrap_or(0) > 0 {
            format!("REFUND {}", cents(&r["refund_cents"]))
        } else {
            cents(&r["prize_cents"])
        };
        out.push(format!(
            "GAME {:<8} {:<11} {:<24} {amount}",
            r["game"].as_i64().unwrap_or(0),
            r["state"].as_str().unwrap_or(""),
            catches.join(" "),
        ));
    }
    out.push(format!(
        "WON {}   PAYABLE {}",
        cents(&t["won_cents"]),
        cents(&t["payable_cents"])
    ));
    if t["cheque"] == true {
        out.push("MAJOR PRIZE: PAID BY CHEQUE (rule 12.2)".into());
    }
    out
}

/// The numbers of games from the draw history, newest first.
pub fn results(games: &Value) -> Vec<String> {
    games
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .map(|g| {
            let numbers: Vec<String> = g["drawn"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|n| format!("{:02}", n.as_u64().unwrap_or(0)))
                .collect();
            format!(
                "GAME {:<6} {:<9} {}",
                g["number"].as_i64().unwrap_or(0),
                g["state"].as_str().unwrap_or(""),
                numbers.join(" ")
            )
        })
        .collect()
}

/// A payment: the line to show, and the slip's rows.
pub fn payment(paid: &Value) -> (String, Vec<(&'static str, String)>) {
    let amount = cents(&paid["paid_cents"]);
    let method = paid["method"].as_str().unwrap_or("").to_uppercase();
    let mut rows = vec![("PAID", amount.clone()), ("BY", method.clone())];
    if method == "CHEQUE" {
        rows.push(("", "MAJOR PRIZE (rule 12.2)".to_string()));
    }
    (format!("PAID {amount} BY {method}"), rows)
}

/// A cancellation: the line to show, and the slip's rows.
pub fn cancellation(c: &Value) -> (String, Vec<(&'static str, String)>) {
    let games: Vec<i64> = c["games_cancelled"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    let refund = cents(&c["refund_cents"]);
    let range = match (games.first(), games.last()) {
        (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
        (Some(a), _) => a.to_string(),
        _ => String::new(),
    };
    (
        format!("CANCELLED {} game(s): REFUND {refund}", games.len()),
        vec![("GAMES CANCELLED", range), ("REFUND", refund)],
    )
}

/// A voucher looked up: what it is, what is left, until when, and where it went.
pub fn voucher(v: &Value) -> Vec<String> {
    let ticket = v["ticket"].as_str().unwrap_or("");
    let source = match v["source"].as_str() {
        Some("deposit") => "A DEPOSIT".to_string(),
        Some("ticket") => format!("WINNING TICKET {ticket}"),
        Some("change") => format!("CHANGE OF TICKET {ticket}"),
        other => other.unwrap_or("").to_uppercase(),
    };
    let mut out = vec![
        format!(
            "VOUCHER {}  {}",
            v["code"].as_str().unwrap_or(""),
            v["status"].as_str().unwrap_or("").to_uppercase()
        ),
        format!(
            "AMOUNT {}   BALANCE {}",
            cents(&v["amount_cents"]),
            cents(&v["balance_cents"])
        ),
        format!(
            "ISSUED KENO DAY {} BY {} (TERMINAL {}, SITE {}) FOR {source}",
            v["keno_day"].as_str().unwrap_or(""),
            v["writer"].as_str().unwrap_or(""),
            v["terminal"].as_str().unwrap_or(""),
            v["site"].as_str().unwrap_or("")
        ),
        format!("VALID UNTIL {}", v["valid_until"].as_str().unwrap_or("")),
    ];
    if v["expired"] == true {
        out.push("EXPIRED: PAYABLE ONLY BY AN UNCLAIMED PRIZE CLAIM FORM (rule 13.1)".to_string());
    }
    for s in v["spends"].as_array().into_iter().flatten() {
        out.push(format!(
            "SPENT {} ON TICKET {} ({} LEFT)",
            cents(&s["amount_cents"]),
            s["serial"].as_str().unwrap_or(""),
            cents(&s["remaining_cents"])
        ));
    }
    if v["cashed_cents"].as_u64().unwrap_or(0) > 0 {
        out.push(format!("CASHED OUT {}", cents(&v["cashed_cents"])));
    }
    out
}

/// A voucher's balance paid in cash: the line to show, and the slip's rows.
pub fn cash_out(c: &Value) -> (String, Vec<(&'static str, String)>) {
    let amount = cents(&c["paid_cents"]);
    (
        format!("PAID {amount} CASH: THE VOUCHER HAS NOTHING LEFT"),
        vec![
            ("PAID", amount),
            ("BY", "CASH".into()),
            ("VOUCHER BALANCE", cents(&c["voucher"]["balance_cents"])),
        ],
    )
}

/// How a sale was paid, for the writer: what each tender covered, the cash to take, the change.
/// Nothing for a sale paid in cash.
pub fn sale_payment(payment: &Value) -> Vec<String> {
    let tenders = payment["tenders"].as_array().cloned().unwrap_or_default();
    if tenders.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for t in &tenders {
        if let Some(code) = t["voucher"].as_str() {
            out.push(format!(
                "VOUCHER {code} PAYS {} ({} LEFT ON IT)",
                cents(&t["covered_cents"]),
                cents(&t["remaining_cents"])
            ));
        } else if let Some(serial) = t["ticket"].as_str() {
            out.push(format!(
                "TICKET {serial} PAYS {} (PAID WHOLE)",
                cents(&t["covered_cents"])
            ));
        }
    }
    out.push(format!("CASH DUE {}", cents(&payment["cash_cents"])));
    if let Some(code) = payment["change_voucher"].as_str() {
        out.push(format!(
            "CHANGE {} AS VOUCHER {code}",
            cents(&payment["change_cents"])
        ));
    }
    out
}

/// The catalogue of set bets, one set a line: number, name, groups, ways and suggested amount.
pub fn set_bets(sets: &Value) -> Vec<String> {
    let list: Vec<&Value> = sets.as_array().into_iter().flatten().collect();
    if list.is_empty() {
        return vec!["NO SET BETS ON SALE".into()];
    }
    list.into_iter()
        .map(|s| {
            let groups: Vec<String> = s["groups"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|g| {
                    g.as_array()
                        .into_iter()
                        .flatten()
                        .map(|n| format!("{:02}", n.as_u64().unwrap_or(0)))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let ways: Vec<String> = s["ways"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|w| format!("{}/{:02}", w["count"], w["spots"].as_u64().unwrap_or(0)))
                .collect();
            let retired = if s["on_sale"] == false {
                "  RETIRED"
            } else {
                ""
            };
            format!(
                "SET {:<4} {:<32} {}  C{}  {}  {}/WAY{retired}",
                s["id"].as_i64().unwrap_or(0),
                s["name"].as_str().unwrap_or(""),
                groups.join("-"),
                s["combine"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                ways.join(" "),
                cents(&s["amount_per_way_cents"]),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_catalogue_one_set_a_line() {
        let sets = json!([{"id": 3, "name": "Lucky Corners", "groups": [[1, 2], [9, 10]], "combine": [1, 2],
            "ways": [{"count": 2, "spots": 2}, {"count": 1, "spots": 4}], "amount_per_way_cents": 50, "on_sale": true}]);
        let lines = set_bets(&sets);
        assert_eq!(lines.len(), 1);
        for part in [
            "SET 3",
            "Lucky Corners",
            "01 02-09 10",
            "C1,2",
            "2/02 1/04",
            "$0.50/WAY",
        ] {
            assert!(lines[0].contains(part), "{part} in {}", lines[0]);
        }
        assert_eq!(set_bets(&json!([])), vec!["NO SET BETS ON SALE"]);
    }
}
