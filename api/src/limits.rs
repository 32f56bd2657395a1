//! How long a request's texts and lists may be: the one list of limits.
//!
//! The server refuses a JSON body over them before any handler reads it (400 `too_long`,
//! naming the field), so nothing stored is longer; the OpenAPI document states each as the
//! field's `maxLength` / `maxItems`. A handler may check a field more narrowly (a serial's
//! form, a name's 32 characters); never more widely.
//!
//! A field is known by its name wherever it appears; a text not named here may be
//! [`DEFAULT_TEXT`] characters long, a list [`MAX_ITEMS`] long.

/// A request id, chosen by the client (a sale, a voucher, a payment, ...).
pub const REQUEST_ID: usize = 100;
/// A text whose field is not in [`FIELDS`].
pub const DEFAULT_TEXT: usize = 200;
/// Any list in a request body.
pub const MAX_ITEMS: usize = 1000;
/// A whole request body, in bytes.
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// A list endpoint's page: the most items one answer holds (`limit` above it is cut to it).
pub const MAX_PAGE: usize = 500;

/// Texts by field name, in characters: each at least what its handler (or keno-core's rule)
/// accepts, so the list refuses only what was always too long to store.
pub const FIELDS: &[(&str, usize)] = &[
    ("request_id", REQUEST_ID),
    // Serials and voucher codes: 22 digits and a few separators as printed.
    ("serial", 40),
    ("ticket", 40),
    ("ticket_serial", 40),
    ("voucher", 40),
    ("voucher_code", 40),
    ("code", 40),
    // People's words for the record.
    ("reason", 500),
    ("note", 500),
    ("description", 500),
    ("excluded_person", 500),
    ("other_details", 2000),
    ("postal_address", 500),
    ("purchase_place", 200),
    ("name", 100),
    ("claimant_name", 200),
    ("phone", 50),
    ("cheque_reference", 100),
    ("id_number", keno_core::payout::HAND_PAY_FIELD_MAX_CHARS),
    ("id_kind", keno_core::payout::HAND_PAY_FIELD_MAX_CHARS),
    ("cheque_number", keno_core::payout::HAND_PAY_FIELD_MAX_CHARS),
    (
        "inspector_notified",
        keno_core::closure::INSPECTOR_MAX_CHARS,
    ),
    // Who and where (a staff ID, a site, a terminal: 16 characters, `staff::check_code`).
    ("staff_id", 64),
    ("site", 64),
    ("terminal", 64),
    ("device", 64),
    ("device_id", 64),
    // Secrets: a PIN, a password (rule of `keno_core::staff::check_secret`), a TOTP code.
    ("pin", 128),
    ("password", keno_core::staff::PASSWORD_MAX_CHARS),
    ("secret", keno_core::staff::PASSWORD_MAX_CHARS),
    ("totp", 16),
];

/// The most characters the field `name` may hold.
pub fn text_limit(name: &str) -> usize {
    FIELDS
        .iter()
        .find(|(field, _)| *field == name)
        .map_or(DEFAULT_TEXT, |(_, max)| *max)
}

/// The first text or list of a JSON request that is over its limit: its field (`$` for the
/// body itself) and what is wrong, in words.
pub fn first_over(value: &serde_json::Value) -> Option<String> {
    over(value, "$", DEFAULT_TEXT)
}

fn over(value: &serde_json::Value, field: &str, max: usize) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::String(s) if s.chars().count() > max => Some(format!(
            "{field} is longer than its {max} characters ({} given)",
            s.chars().count()
        )),
        Value::Array(items) if items.len() > MAX_ITEMS => Some(format!(
            "{field} has more than {MAX_ITEMS} items ({} given)",
            items.len()
        )),
        // A list's texts are of the list's field.
        Value::Array(items) => items.iter().find_map(|v| over(v, field, max)),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if k.chars().count() > DEFAULT_TEXT {
                return Some(format!(
                    "a field name is longer than {DEFAULT_TEXT} characters"
                ));
            }
            over(v, k, text_limit(k))
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn texts_are_held_to_their_fields_limits_wherever_they_are() {
        assert_eq!(first_over(&json!({"serial": "1".repeat(40)})), None);
        let long = json!({"form": {"serial": "1".repeat(41)}});
        assert!(first_over(&long)
            .unwrap()
            .starts_with("serial is longer than its 40"));
        let listed = json!({"tender": [{"voucher": "x".repeat(41)}]});
        assert!(first_over(&listed).unwrap().starts_with("voucher"));
        let unnamed = json!({"whatever": "é".repeat(DEFAULT_TEXT)});
        assert_eq!(first_over(&unnamed), None, "characters, not bytes");
        assert!(first_over(&json!({"whatever": "x".repeat(DEFAULT_TEXT + 1)})).is_some());
        assert!(first_over(&json!({"n": vec![1; MAX_ITEMS + 1]})).is_some());
        assert!(first_over(&json!({"k".repeat(DEFAULT_TEXT + 1): 1})).is_some());
    }
}
