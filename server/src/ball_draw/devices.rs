//! Ball devices in and out of service (rule 10.4(a), (c), (d)): after a spill a device draws
//! nothing until it is rectified, after a broken ball or a stoppage nothing further until the
//! ball is replaced or the machine mended; in each case it is back in service once a supervisor
//! and an inspector have each returned it, each with their own token. The endpoints
//! (`/api/v1/devices`) are `routes/ball_draw/devices.rs`.

use diesel::prelude::*;

use super::key_of;
use crate::approvals::{self, approvable, TwoKey};
use crate::auth::{Principal, Role};
use crate::db::schema::{device_holds, draw_faults, principals};
use crate::db::{now_micros, rfc3339, DbConnection};
use crate::error::{DomainResult, Failure};
use keno_api::Refusal;
use keno_core::{AlreadyApproved, HoldState, Key};
// The wire's types (keno-api), where the server's modules have always found them.
pub use keno_api::draw::{Device, Hold, ReturnRequest};

#[derive(Queryable, Selectable, Debug)]
#[diesel(table_name = device_holds)]
pub struct HoldRow {
    pub id: i64,
    pub device_id: String,
    pub fault_id: i64,
    pub blocks_from_game: i64,
    pub opened_at: i64,
    pub supervisor_id: Option<String>,
    pub supervisor_at: Option<i64>,
    pub supervisor_note: Option<String>,
    pub inspector_id: Option<String>,
    pub inspector_at: Option<i64>,
    pub inspector_note: Option<String>,
    pub returned_at: Option<i64>,
}

/// The hold that keeps `device` from drawing game `game`, if any.
pub fn open_hold(conn: &mut DbConnection, device: &str, game: i64) -> QueryResult<Option<HoldRow>> {
    device_holds::table
        .filter(device_holds::device_id.eq(device))
        .filter(device_holds::returned_at.is_null())
        .filter(device_holds::blocks_from_game.le(game))
        .order(device_holds::id)
        .select(HoldRow::as_select())
        .first(conn)
        .optional()
}

/// Ball device `id` and its holds (the latest 20).
pub fn device(conn: &mut DbConnection, id: &str) -> DomainResult<Device> {
    let name: Option<(String, String)> = principals::table
        .find(id)
        .select((principals::name, principals::role))
        .first(conn)
        .optional()?;
    let name = match name {
        Some((name, role)) if crate::auth::stored_role(&role, id)? == Role::Device => name,
        _ => return Err(Failure::not_found("device")),
    };
    let rows: Vec<(HoldRow, String)> = device_holds::table
        .inner_join(draw_faults::table.on(draw_faults::id.eq(device_holds::fault_id)))
        .filter(device_holds::device_id.eq(id))
        .order((
            device_holds::returned_at.is_not_null(),
            device_holds::id.desc(),
        ))
        .limit(20)
        .select((HoldRow::as_select(), draw_faults::kind))
        .load(conn)?;
    let holds: Vec<Hold> = rows
        .into_iter()
        .map(|(h, kind)| Hold {
            id: h.id,
            fault: h.fault_id,
            fault_kind: kind,
            blocks_from_game: h.blocks_from_game,
            opened_at: rfc3339(h.opened_at),
            supervisor: h.supervisor_id,
            supervisor_at: h.supervisor_at.map(rfc3339),
            supervisor_note: h.supervisor_note,
            inspector: h.inspector_id,
            inspector_at: h.inspector_at.map(rfc3339),
            inspector_note: h.inspector_note,
            returned_at: h.returned_at.map(rfc3339),
        })
        .collect();
    Ok(Device {
        id: id.to_string(),
        name,
        in_service: holds.iter().all(|h| h.returned_at.is_some()),
        holds,
    })
}

// Each key turned on a hold enters the trail under the device, with both keys' notes.
approvable! {
    HoldRow in device_holds as "device hold",
    state: HoldState = |h| if h.returned_at.is_some() { HoldState::Returned } else { HoldState::Held },
    refused: |_| Refusal::DeviceInService,
    subject: |h| h.device_id.clone(),
    kind: |_| crate::audit::kind::EntryKind::DeviceReturnApproved,
    payload: |h| serde_json::json!({
        "hold": h.id, "fault": h.fault_id,
        "supervisor": h.supervisor_id, "supervisor_note": h.supervisor_note,
        "inspector": h.inspector_id, "inspector_note": h.inspector_note,
        "returned": h.returned_at.is_some(),
    }),
}

impl TwoKey for HoldRow {
    fn holder(&self, key: Key) -> Option<&str> {
        match key {
            Key::Supervisor => self.supervisor_id.as_deref(),
            Key::Inspector => self.inspector_id.as_deref(),
        }
    }
}

/// Turns `by`'s key on hold `id` (rule 10.4); with both keys turned the hold ends.
fn turn_key(conn: &mut DbConnection, id: i64, by: &Principal, note: &str) -> DomainResult<HoldRow> {
    let key = key_of(by);
    let turner = approvals::Turner {
        id: &by.id,
        name: &by.name,
    };
    approvals::turn::<HoldRow, _>(conn, id, key, turner, |conn, _, returned| {
        let now = now_micros();
        let target = device_holds::table
            .find(id)
            .filter(device_holds::returned_at.is_null());
        let returned_at = returned.map(|_| now);
        Ok(match key {
            Key::Supervisor => diesel::update(target.filter(device_holds::supervisor_id.is_null()))
                .set((
                    device_holds::supervisor_id.eq(&by.id),
                    device_holds::supervisor_at.eq(now),
                    device_holds::supervisor_note.eq(note),
                    device_holds::returned_at.eq(returned_at),
                ))
                .execute(conn)?,
            Key::Inspector => diesel::update(target.filter(device_holds::inspector_id.is_null()))
                .set((
                    device_holds::inspector_id.eq(&by.id),
                    device_holds::inspector_at.eq(now),
                    device_holds::inspector_note.eq(note),
                    device_holds::returned_at.eq(returned_at),
                ))
                .execute(conn)?,
        })
    })
}

/// `by`'s approval (with `note`) to return device `id` to service, on every open hold on it or
/// on that of `fault`: the device, and whether it is back in service.
pub fn approve_return(
    conn: &mut DbConnection,
    id: &str,
    by: &Principal,
    note: &str,
    fault: Option<i64>,
) -> DomainResult<(Device, bool)> {
    let before = device(conn, id)?;
    if before.in_service {
        return Err(Failure::refuse(
            Refusal::DeviceInService,
            format!("device {id} is in service: no fault holds it"),
        ));
    }
    let mut open = device_holds::table
        .filter(device_holds::device_id.eq(id))
        .filter(device_holds::returned_at.is_null())
        .select(HoldRow::as_select())
        .into_boxed();
    if let Some(fault) = fault {
        open = open.filter(device_holds::fault_id.eq(fault));
    }
    let holds: Vec<HoldRow> = open.load(conn)?;
    if holds.is_empty() {
        return Err(Failure::not_found("open hold of that fault on this device"));
    }
    let key = key_of(by);
    let waiting: Vec<&HoldRow> = holds.iter().filter(|h| !h.keys().has(key)).collect();
    if waiting.is_empty() {
        // Every open hold has this key already (rule 10.4): the other key is needed.
        let e = AlreadyApproved { key };
        return Err(Failure::refuse(
            Refusal::AlreadyApproved,
            format!("returning device {id}: {e}"),
        ));
    }
    for hold in waiting {
        turn_key(conn, hold.id, by, note)?;
    }
    let after = device(conn, id)?;
    let back = after.in_service;
    Ok((after, back))
}

/// Every ball device and whether it is in service.
pub fn all(conn: &mut DbConnection) -> DomainResult<Vec<Device>> {
    let ids: Vec<String> = principals::table
        .filter(principals::role.eq(Role::Device.as_str()))
        .order(principals::id)
        .select(principals::id)
        .load(conn)?;
    ids.iter().map(|id| device(conn, id)).collect()
}
