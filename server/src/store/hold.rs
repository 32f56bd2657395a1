//! Rows held for the rest of a transaction, so that a concurrent change of them is wholly
//! before or after it: `FOR UPDATE` (to change them) or `FOR SHARE` (to rely on them) on
//! PostgreSQL; on SQLite the writer's turn (`Db::writer_turn`) already serialises every
//! writer, so a plain read holds as much.

/// How rows are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// To rely on them (`FOR SHARE`): others may share them, not change them.
    Share,
    /// To change them (`FOR UPDATE`).
    Update,
    /// Not held: a plain read (a quote, a view).
    Read,
}

/// Runs `$query` as `|$c, $q| $run` with the rows held as `$how` says. The query is built in
/// each arm because diesel types a select by its backend.
///
/// ```ignore
/// held!(conn, Hold::Update, vouchers::table.select(VoucherRow::as_select()), |c, q| q.load(c))
/// ```
macro_rules! held {
    ($conn:expr, $how:expr, $query:expr, |$c:ident, $q:ident| $run:expr) => {{
        use $crate::store::hold::Hold;
        match $conn {
            $crate::db::DbConnection::Sqlite($c) => {
                let $q = $query;
                $run
            }
            $crate::db::DbConnection::Pg($c) => match $how {
                Hold::Share => {
                    let $q = $query.for_share();
                    $run
                }
                Hold::Update => {
                    let $q = $query.for_update();
                    $run
                }
                Hold::Read => {
                    let $q = $query;
                    $run
                }
            },
        }
    }};
}
pub(crate) use held;
