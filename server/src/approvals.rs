//! One life cycle for every act that waits for a decision: a claim (rules 13, 14), a
//! correction of a drawn number (10.1), a bonus prize (6.3(e)), a Special 3 approval (18.4) and
//! a set bet on sale. The row is held, the core's table for its kind ([`keno_core::decide`])
//! says where the act leads, the change is stored guarded by the state it was decided from (so
//! of two decisions at once one wins whole and the other is refused), and the act enters the
//! audit trail with who did it.

use keno_api::Refusal;
use keno_core::{Act, Key, Keys, Lifecycle, NotOpen, Part};

use crate::audit::log::{append, Entry};
use crate::db::DbConnection;
use crate::error::{DomainResult, Failure};

/// A kind of approval, as stored.
pub trait Approvable: Sized {
    type State: Lifecycle;
    /// How messages name one: "claim", "bonus prize".
    const WHAT: &'static str;
    /// The refusal of `act` where it is not open (decided already, withdrawn).
    fn refusal(act: Act) -> Refusal;
    /// The row, held against a concurrent decision until the transaction ends.
    fn hold(conn: &mut DbConnection, id: i64) -> DomainResult<Option<Self>>;
    fn state(&self) -> Self::State;
    /// The audit trail's entry of its proposal (`None`) or of `act`, the row as it is after.
    fn entry(&self, act: Option<Act>) -> Entry;
}

/// The row `id`, held; none is a 404.
pub fn held<T: Approvable>(conn: &mut DbConnection, id: i64) -> DomainResult<T> {
    T::hold(conn, id)?.ok_or_else(|| Failure::not_found(T::WHAT))
}

/// The row `id`, held, refused if `act` is not open from its state: for acts that hold other
/// rows (the game of a correction) before they decide.
pub fn open<T: Approvable>(conn: &mut DbConnection, id: i64, act: Act) -> DomainResult<T> {
    let row = held::<T>(conn, id)?;
    keno_core::decide(row.state(), act).map_err(|e| not_open::<T>(id, e))?;
    Ok(row)
}

/// Records a proposal just stored: its entry in the audit trail.
pub fn proposed<T: Approvable>(conn: &mut DbConnection, row: &T, by: &str) -> DomainResult<()> {
    Ok(append(conn, vec![row.entry(None).by(by)])?)
}

/// `act` on approval `id` by `by`. `store` checks what else the act needs and writes the new
/// state with who, when and why, filtered on the state it was decided from; it answers the
/// rows it changed, so that 0 means another decision came first.
pub fn decide<T, F>(
    conn: &mut DbConnection,
    id: i64,
    act: Act,
    by: &str,
    store: F,
) -> DomainResult<T>
where
    T: Approvable,
    F: FnOnce(&mut DbConnection, &T, T::State) -> DomainResult<usize>,
{
    let row = held::<T>(conn, id)?;
    let to = keno_core::decide(row.state(), act).map_err(|e| not_open::<T>(id, e))?;
    if store(conn, &row, to)? != 1 {
        let now = held::<T>(conn, id)?.state().to_string();
        return Err(not_open::<T>(id, NotOpen { from: now, act }));
    }
    let row = held::<T>(conn, id)?;
    append(conn, vec![row.entry(Some(act)).by(by)])?;
    Ok(row)
}

/// A kind approved with two keys, a supervisor's and an inspector's (rules 10.1, 10.4).
pub trait TwoKey: Approvable {
    /// The staff ID that turned `key`, if turned.
    fn holder(&self, key: Key) -> Option<&str>;

    fn keys(&self) -> Keys {
        Keys {
            supervisor: self.holder(Key::Supervisor).is_some(),
            inspector: self.holder(Key::Inspector).is_some(),
        }
    }
}

/// Who turns a key: their staff ID and name.
#[derive(Clone, Copy, Debug)]
pub struct Turner<'a> {
    pub id: &'a str,
    pub name: &'a str,
}

/// `by` turns `key` on approval `id`: refused where approval is not open, the key was turned
/// already (each key once), or the other key was turned by the same person under another staff
/// ID (issue 31: the two keys are two people, `keno_core::two_people`). `store` writes the key
/// and, with `Some(state)` when this key completes the two, the approved state; it answers the
/// rows it changed. Each key enters the audit trail.
pub fn turn<T, F>(
    conn: &mut DbConnection,
    id: i64,
    key: Key,
    by: Turner<'_>,
    store: F,
) -> DomainResult<T>
where
    T: TwoKey,
    F: FnOnce(&mut DbConnection, &T, Option<T::State>) -> DomainResult<usize>,
{
    let row = held::<T>(conn, id)?;
    let approved =
        keno_core::decide(row.state(), Act::Approve).map_err(|e| not_open::<T>(id, e))?;
    let keys = row
        .keys()
        .turn(key)
        .map_err(|e| Failure::refuse(Refusal::AlreadyApproved, format!("{} {id}: {e}", T::WHAT)))?;
    if let Some(other) = row.holder(key.other()) {
        let name = crate::staff::name_of(conn, other)?;
        let first = (Part::TurnedTheKey(key.other()), name.as_str());
        keno_core::two_people(first, (Part::TurnedTheKey(key), by.name))
            .map_err(|e| Failure::refuse(Refusal::SamePerson, format!("{} {id}: {e}", T::WHAT)))?;
    }
    if store(conn, &row, keys.complete().then_some(approved))? != 1 {
        let now = held::<T>(conn, id)?.state().to_string();
        return Err(not_open::<T>(
            id,
            NotOpen {
                from: now,
                act: Act::Approve,
            },
        ));
    }
    let row = held::<T>(conn, id)?;
    append(conn, vec![row.entry(Some(Act::Approve)).by(by.id)])?;
    Ok(row)
}

fn not_open<T: Approvable>(id: i64, e: NotOpen) -> Failure {
    Failure::refuse(T::refusal(e.act), format!("{} {id}: {e}", T::WHAT))
}

/// Implements [`Approvable`] for the rows of `$table` (keyed by `id`, read as `$row`): named
/// `$what`, in the state `$state` that `$read` gives, refused as `$refused` gives, and entered in
/// the audit trail as `$kind` names each step with the payload `$payload` makes.
macro_rules! approvable {
    (
        $row:ident in $table:ident as $what:literal,
        state: $state:ty = $read:expr,
        refused: $refused:expr,
        subject: $subject:expr,
        kind: $kind:expr,
        payload: $payload:expr $(,)?
    ) => {
        impl $crate::approvals::Approvable for $row {
            type State = $state;
            const WHAT: &'static str = $what;

            fn refusal(act: keno_core::Act) -> keno_api::Refusal {
                let refused: fn(keno_core::Act) -> keno_api::Refusal = $refused;
                refused(act)
            }

            fn hold(
                conn: &mut $crate::db::DbConnection,
                id: i64,
            ) -> $crate::error::DomainResult<Option<$row>> {
                use diesel::prelude::*;
                let query = $crate::store::hold::held!(
                    conn,
                    Hold::Update,
                    $table::table.find(id).select(<$row>::as_select()),
                    |c, q| q.first(c).optional()
                );
                Ok(query?)
            }

            fn state(&self) -> $state {
                let read: fn(&$row) -> $state = $read;
                read(self)
            }

            fn entry(&self, act: Option<keno_core::Act>) -> $crate::audit::log::Entry {
                let kind: fn(Option<keno_core::Act>) -> $crate::audit::kind::EntryKind = $kind;
                let subject: fn(&$row) -> String = $subject;
                let payload: fn(&$row) -> serde_json::Value = $payload;
                $crate::audit::log::Entry::new(kind(act), subject(self), payload(self))
            }
        }
    };
}
pub(crate) use approvable;
