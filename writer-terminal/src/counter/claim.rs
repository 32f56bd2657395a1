//! The Unclaimed Prize Claim Form (rules 13.1, 13.5, 14; Diagram E) typed at the counter: its
//! fields one after the other, as the player gives them, filed with the server, which finds
//! the tickets that match for an inspector to decide.

use keno_api::claims::{Claim, ClaimForm, ClaimReason};

use super::form::{Field, Form};
use super::{App, Prompt, Purpose};

const REASON: &str = "REASON (old, lost or mutilated)";
const NAME: &str = "CLAIMANT'S NAME";
const ADDRESS: &str = "POSTAL ADDRESS (lines separated by commas)";
const PHONE: &str = "PHONE";
const PLACE: &str = "WHERE BOUGHT (site or terminal)";
const DATE: &str = "WHEN BOUGHT (YYYY-MM-DD)";
const GAME: &str = "ABOUT WHICH GAME";
const GAMES: &str = "HOW MANY GAMES";
const SERIAL: &str = "SERIAL, IF KNOWN";
const DETAILS: &str = "OTHER DETAILS";

pub(super) fn form() -> Form {
    Form::new(
        "UNCLAIMED PRIZE CLAIM FORM",
        vec![
            "A ticket over 12 months old, lost or unreadable (rules 13.1, 13.5): the player's \
             details as on the form (ESC drops it):"
                .into(),
        ],
        vec![
            Field::text(REASON),
            Field::text(NAME),
            Field::text(ADDRESS),
            Field::text(PHONE),
            Field::text(PLACE),
            Field::text(DATE),
            Field::optional(GAME),
            Field::optional(GAMES),
            Field::optional(SERIAL),
            Field::optional(DETAILS),
        ],
    )
}

/// The fields as the server takes them, or what is wrong with one (named, for the writer to
/// type again).
fn claim_form(form: &Form) -> Result<ClaimForm, String> {
    let reason = ClaimReason::parse(form.value(REASON)).ok_or_else(|| {
        format!(
            "{:?}: the reason is old, lost or mutilated",
            form.value(REASON)
        )
    })?;
    let number = |label: &str| -> Result<Option<i64>, String> {
        match form.value(label).trim() {
            "" => Ok(None),
            n => n
                .parse()
                .map(Some)
                .map_err(|_| format!("{n:?}: the {} is a number", label.to_lowercase())),
        }
    };
    let games = number(GAMES)?
        .map(i32::try_from)
        .transpose()
        .map_err(|_| "too many games".to_string())?;
    let serial = Some(form.value(SERIAL).trim().to_string()).filter(|s| !s.is_empty());
    Ok(ClaimForm {
        reason,
        claimant_name: form.value(NAME).to_string(),
        postal_address: form.value(ADDRESS).replace(", ", "\n"),
        phone: form.value(PHONE).to_string(),
        purchase_place: form.value(PLACE).to_string(),
        purchase_date: form.value(DATE).to_string(),
        approx_game: number(GAME)?,
        games,
        other_details: form.value(DETAILS).to_string(),
        serial,
        voucher_code: None,
        voucher_amount_cents: None,
        numbers: None,
        amount_cents: None,
    })
}

impl App<'_> {
    pub(super) fn open_claim(&mut self) {
        self.status = "the claim form: ENTER after each field".into();
        self.prompt = Some(Prompt {
            form: form(),
            purpose: Purpose::Claim,
        });
    }

    /// The form filed: the claim and the tickets that match it shown; a mistake or a refusal
    /// keeps the form, for the field to be typed again.
    pub(super) fn submit_claim(&mut self, mut form: Form) {
        self.used();
        let filed = claim_form(&form)
            .map_err(|e| e.to_string())
            .and_then(|body| {
                self.client
                    .post::<_, Claim>("/api/v1/claims", &body)
                    .map_err(super::refusal)
            });
        match filed {
            Ok(claim) => {
                self.panel = crate::claim::describe(&claim)
                    .lines()
                    .map(str::to_string)
                    .collect();
                self.status = format!(
                    "CLAIM {} FILED: writer-terminal claim form {} --out FILE prints it to sign",
                    claim.id, claim.id
                );
            }
            Err(e) => {
                self.status = format!("NOT FILED: {e} (ESC drops it)");
                form.focus = 0;
                self.prompt = Some(Prompt {
                    form,
                    purpose: Purpose::Claim,
                });
            }
        }
    }
}
