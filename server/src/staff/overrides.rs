//! A supervisor's approval at that moment (issue "Running the room"; INTERPRETATION.md, "Where
//! a ticket may be handled"): a writer handles only tickets sold at the writer's own site, and
//! pays alone only up to the payout limit. Beyond either, a supervisor comes to the counter and
//! signs on inside the writer's request (`POST /api/v1/overrides`: password and TOTP code); the
//! grant answered is good once, for that action on that ticket by that writer, for two
//! minutes, and the writer's retried request carries it (`X-Keno-Override`). It is spent in
//! the same transaction as the action, so an action refused for another reason leaves it
//! unspent. Both names enter the trail (`override_granted`, and the action's own entry names
//! the approval), and the exceptions.

use diesel::prelude::*;
use keno_api::staff::{OverrideAction, OverrideGrant};
use keno_api::Refusal;
use keno_core::{NeedsSupervisor, OutAct, OutLimits, ValueOut, Withheld};

use super::{secret, StaffRow};
use crate::audit::log::{append, Entry};
use crate::auth::{token_hash, Principal};
use crate::db::schema::overrides;
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};

/// How long a grant is good for.
const GRANT_MICROS: i64 = 120 * 1_000_000;

/// The grant a request carries in `X-Keno-Override`, if any.
#[derive(Clone, Debug, Default)]
pub struct OverrideHeader(pub Option<String>);

/// The supervisor who approved an action, for the action's own record.
#[derive(Clone, Debug)]
pub struct Approval {
    pub supervisor_id: String,
}

impl Approval {
    pub fn payload(approval: &Option<Approval>) -> serde_json::Value {
        approval
            .as_ref()
            .map_or(serde_json::Value::Null, |a| a.supervisor_id.clone().into())
    }
}

/// Whether `principal` may do `action` to the ticket (or voucher) `serial` of `site`, handing
/// out `pays` cents: keno-core's one rule of value going out (`keno_core::value_out`) says
/// whether it is refused (no shift open at the writer's terminal), needs a supervisor's grant,
/// or goes ahead alone; the grant carried is spent here. Others than writers pass (their roles
/// are checked on the route).
#[allow(clippy::too_many_arguments)]
pub fn admit(
    limits: OutLimits,
    conn: &mut DbConnection,
    principal: &Principal,
    carried: &OverrideHeader,
    action: OverrideAction,
    serial: &str,
    site: &str,
    pays: Option<u64>,
) -> DomainResult<Option<Approval>> {
    let Some(office) = super::office(principal.role) else {
        return Ok(None);
    };
    let out = ValueOut {
        act: out_act(action),
        office,
        at_site: principal.site.as_deref(),
        of_site: site,
        amount_cents: pays,
        shift: crate::shifts::shift_of(conn, principal, limits.shift)?,
    };
    let needs = match keno_core::value_out(out, limits) {
        Ok(()) => return Ok(None),
        Err(Withheld::NoShift) => return Err(crate::shifts::no_shift()),
        Err(Withheld::NeedsSupervisor(needs)) => needs,
    };
    let Some(token) = &carried.0 else {
        let (what, made) = match action {
            OverrideAction::CashOut => ("voucher", "issued"),
            _ => ("ticket", "sold"),
        };
        return Err(match needs {
            NeedsSupervisor::OtherSite => Failure::refuse(
                Refusal::OtherSite,
                format!("{what} {serial} was {made} at site {site}: a supervisor's approval is needed (POST /api/v1/overrides)"),
            ),
            NeedsSupervisor::AboveLimit { limit_cents } => Failure::refuse(
                Refusal::ApprovalRequired,
                format!("{what} {serial} pays more than a writer's payout limit of {}: a supervisor approves (POST /api/v1/overrides)", keno_core::Dollars(limit_cents)),
            ),
        });
    };
    spend(conn, principal, token, action, serial).map(Some)
}

/// The act of value going out an override's action is.
fn out_act(action: OverrideAction) -> OutAct {
    match action {
        OverrideAction::Check => OutAct::Handling,
        OverrideAction::Cancel => OutAct::Refund,
        OverrideAction::Pay => OutAct::Payment,
        OverrideAction::Tender => OutAct::Tender,
        OverrideAction::CashOut => OutAct::CashOut,
    }
}

/// Spends a grant for exactly this writer, action and ticket.
fn spend(
    conn: &mut DbConnection,
    principal: &Principal,
    token: &str,
    action: OverrideAction,
    serial: &str,
) -> DomainResult<Approval> {
    let now = now_micros();
    let id = token_hash(token);
    let supervisor: Option<String> = overrides::table
        .find(&id)
        .filter(overrides::writer_id.eq(&principal.id))
        .filter(overrides::action.eq(action.as_str()))
        .filter(overrides::serial.eq(serial))
        .filter(overrides::used_at.is_null())
        .filter(overrides::expires_at.gt(now))
        .select(overrides::supervisor_id)
        .first(conn)
        .optional()?;
    let spent = match &supervisor {
        Some(_) => diesel::update(overrides::table.find(&id))
            .filter(overrides::used_at.is_null())
            .set(overrides::used_at.eq(now))
            .execute(conn)?,
        None => 0,
    };
    match supervisor {
        Some(supervisor_id) if spent == 1 => Ok(Approval { supervisor_id }),
        _ => Err(Failure::refuse(
            Refusal::InvalidOverride,
            format!("the approval carried is not good for {} of ticket {serial} by this writer now: unknown, used, expired or for another action", action.as_str()),
        )),
    }
}

pub fn record(
    conn: &mut DbConnection,
    writer: &Principal,
    supervisor: &StaffRow,
    action: OverrideAction,
    serial: &str,
    reason: &str,
) -> DomainResult<OverrideGrant> {
    let token = secret::new_token("ko_");
    let now = now_micros();
    let expires_at = now + GRANT_MICROS;
    diesel::insert_into(overrides::table)
        .values((
            overrides::id.eq(token_hash(&token)),
            overrides::action.eq(action.as_str()),
            overrides::serial.eq(serial),
            overrides::writer_id.eq(&writer.id),
            overrides::site.eq(&writer.site),
            overrides::terminal.eq(&writer.terminal),
            overrides::supervisor_id.eq(&supervisor.id),
            overrides::reason.eq(reason),
            overrides::granted_at.eq(now),
            overrides::expires_at.eq(expires_at),
        ))
        .execute(conn)?;
    append(
        conn,
        vec![Entry::new(
            crate::audit::kind::EntryKind::OverrideGranted,
            serial,
            serde_json::json!({
                "action": action.as_str(), "writer": writer.id, "writer_name": writer.name,
                "site": writer.site, "terminal": writer.terminal, "supervisor": supervisor.id,
                "supervisor_name": supervisor.name, "reason": reason, "granted_at": now,
                "expires_at": expires_at, "grant_sha256": token_hash(&token),
            }),
        )
        .by(&supervisor.id)],
    )?;
    Ok(OverrideGrant {
        grant: token,
        action,
        serial: serial.to_string(),
        supervisor_id: supervisor.id.clone(),
        supervisor_name: supervisor.name.clone(),
        expires_at: rfc3339(expires_at),
    })
}

/// A writer at the counter: who, with the approval the request carries.
#[derive(Clone, Copy)]
pub struct AtCounter<'a> {
    /// What a writer hands out alone, and whether only with a shift open.
    pub limits: OutLimits,
    pub principal: &'a Principal,
    pub carried: &'a OverrideHeader,
}

impl AtCounter<'_> {
    /// The approval a payment of ticket `serial` sold at `site` needs: for another site's
    /// ticket, before anything of it is read (`due`); then, the amount known, for more than a
    /// writer pays alone. One grant covers both.
    pub fn admit_payment<T>(
        &self,
        conn: &mut DbConnection,
        (serial, site): (&str, &str),
        due: impl FnOnce(&mut DbConnection) -> DomainResult<(u64, T)>,
    ) -> DomainResult<(Option<Approval>, T)> {
        let (limits, principal, carried) = (self.limits, self.principal, self.carried);
        let pay = OverrideAction::Pay;
        let first = admit(limits, conn, principal, carried, pay, serial, site, None)?;
        let (total, value) = due(conn)?;
        let approval = match first {
            Some(given) => Some(given),
            None => admit(
                limits,
                conn,
                principal,
                carried,
                pay,
                serial,
                site,
                Some(total),
            )?,
        };
        Ok((approval, value))
    }
}
