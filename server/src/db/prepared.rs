//! Raw SQL that PostgreSQL prepares once per session and keeps.
//!
//! diesel never caches a `sql_query` (its text may be built at run time) nor a multi-row insert
//! (its text grows with the rows), so each call was parsed and planned again: at thousands of
//! sales a second, parsing was PostgreSQL's busiest function. The sale writer's statements are
//! fixed texts taking arrays (`unnest`), whatever the batch's size, so they are marked safe to
//! cache here: diesel then keeps them prepared, by their SQL, on each connection.

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::{QueryResult, RunQueryDsl};

/// A statement of fixed text (never one built at run time), prepared once per connection.
pub struct Prepared<Q>(pub Q);

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for Prepared<Q> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
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
