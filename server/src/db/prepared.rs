//! Statements of fixed text that the connection prepares once and keeps.
//!
//! diesel never caches a `sql_query` (its text may be built at run time), a multi-row insert
//! (its text grows with the rows), an insert with an optional column, nor any `UPDATE`, so each
//! call was parsed (and on PostgreSQL planned) again: at thousands of sales a second, parsing
//! was PostgreSQL's busiest function, and a tenth of SQLite's sale writer (issue 37). The sale
//! writer's statements have texts that do not change from call to call (PostgreSQL's take
//! arrays, `unnest`, whatever the batch's size; SQLite's terminal update and shifts lookup are
//! one row or one list), so they are marked safe to cache here: diesel then keeps them
//! prepared, by their SQL and bind types, on each connection.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::{QueryResult, RunQueryDsl};

/// A statement whose text depends on nothing but its types (never one built at run time from
/// values), prepared once per connection.
///
/// Run it with `load` or `get_result`, never `execute`: diesel's `execute` takes the statement
/// by reference, and a reference asks the statement's parts whether it may be cached, never
/// this wrapper, so an `execute` was parsed again every time (the sale's rows and trail
/// entries were, on both backends). A statement with nothing to return is made to return
/// something (`RETURNING`, or [`Count`] of it); on SQLite a `RETURNING` journals each row and
/// costs more than the parse it saves, so SQLite's single-row inserts stay `execute`s.
pub struct Prepared<Q>(pub Q);

/// What a kept statement with nothing else to return answers: `SELECT count(*) AS count`.
#[derive(diesel::QueryableByName)]
pub struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub count: i64,
}

impl<DB: Backend, Q: QueryFragment<DB>> QueryFragment<DB> for Prepared<Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}

// No static id: cached by its SQL text and bind types.
impl<Q> QueryId for Prepared<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for Prepared<Q> {
    type SqlType = Q::SqlType;
}

impl<Q, Conn> RunQueryDsl<Conn> for Prepared<Q> {}
