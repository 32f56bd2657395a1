//! Statements of fixed text that the connection prepares once and keeps.
//!
//! diesel never caches a `sql_query` (its text may be built at run time), a multi-row insert
//! (its text grows with the rows), an insert with an optional column (SQLite leaves a column
//! that is `None` out of the text), nor any `UPDATE`, so each call was parsed (and on
//! PostgreSQL planned) again: at thousands of sales a second, parsing was PostgreSQL's busiest
//! function, and a tenth of SQLite's sale writer (issue 37). The sale writer's statements have
//! texts that do not change from call to call (PostgreSQL's take arrays, `unnest`, whatever the
//! batch's size; SQLite's take one row), so they are written as [`fixed`] text, or a query
//! built by diesel is marked [`Prepared`]: diesel then keeps them prepared, by their SQL and
//! bind types, on each connection.

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{HasSqlType, Untyped};
use diesel::{QueryResult, RunQueryDsl};

/// SQL text that never changes, `?` marking each parameter on either backend (diesel writes
/// each backend's own placeholder), the parameters bound in order with `bind`. Unlike
/// `sql_query` it never tells diesel its text may change, so it is kept prepared however it is
/// run, `execute` included. A text whose `?`s and parameters differ in number is an error.
pub fn fixed(sql: &'static str) -> Fixed {
    Fixed(sql)
}

/// See [`fixed`].
#[derive(Clone, Copy, Debug)]
pub struct Fixed(&'static str);

impl Fixed {
    pub fn bind<ST, V>(self, value: V) -> Bind<Self, V, ST> {
        Bind(self, value, PhantomData)
    }
}

/// A [`fixed`] statement and its parameters so far: `value`, of SQL type `ST`, is the last.
pub struct Bind<Q, V, ST>(Q, V, PhantomData<ST>);

impl<Q, V, ST> Bind<Q, V, ST> {
    pub fn bind<ST2, V2>(self, value: V2) -> Bind<Self, V2, ST2> {
        Bind(self, value, PhantomData)
    }
}

type Pieces = std::str::Split<'static, char>;

/// A fixed text and its parameters, written piece by piece: the text before the first `?`,
/// then each parameter and the text after its `?`.
pub trait Pieced<DB: Backend> {
    fn text(&self) -> &'static str;
    fn walk_pieces<'b>(
        &'b self,
        out: &mut AstPass<'_, 'b, DB>,
        pieces: &mut Pieces,
    ) -> QueryResult<()>;
}

impl<DB: Backend> Pieced<DB> for Fixed {
    fn text(&self) -> &'static str {
        self.0
    }

    fn walk_pieces<'b>(
        &'b self,
        out: &mut AstPass<'_, 'b, DB>,
        pieces: &mut Pieces,
    ) -> QueryResult<()> {
        out.push_sql(pieces.next().unwrap_or(""));
        Ok(())
    }
}

impl<DB, Q, V, ST> Pieced<DB> for Bind<Q, V, ST>
where
    DB: Backend + HasSqlType<ST>,
    Q: Pieced<DB>,
    V: ToSql<ST, DB>,
{
    fn text(&self) -> &'static str {
        self.0.text()
    }

    fn walk_pieces<'b>(
        &'b self,
        out: &mut AstPass<'_, 'b, DB>,
        pieces: &mut Pieces,
    ) -> QueryResult<()> {
        self.0.walk_pieces(out, pieces)?;
        let after = pieces.next().ok_or_else(|| miscounted(self.text()))?;
        out.push_bind_param::<ST, V>(&self.1)?;
        out.push_sql(after);
        Ok(())
    }
}

fn miscounted(text: &str) -> diesel::result::Error {
    diesel::result::Error::QueryBuilderError(
        format!("the parameters bound are not the `?`s of: {text}").into(),
    )
}

/// Walks the whole text: the pieces must be used up.
fn walk_whole<'b, DB: Backend>(
    statement: &'b impl Pieced<DB>,
    mut out: AstPass<'_, 'b, DB>,
) -> QueryResult<()> {
    let mut pieces = statement.text().split('?');
    statement.walk_pieces(&mut out, &mut pieces)?;
    match pieces.next() {
        None => Ok(()),
        Some(_) => Err(miscounted(statement.text())),
    }
}

impl<DB: Backend> QueryFragment<DB> for Fixed {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        walk_whole(self, out)
    }
}

impl<DB, Q, V, ST> QueryFragment<DB> for Bind<Q, V, ST>
where
    Self: Pieced<DB>,
    DB: Backend,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        walk_whole(self, out)
    }
}

// No static id: texts differ, so each is cached by its SQL text and bind types.
impl QueryId for Fixed {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q, V, ST> QueryId for Bind<Q, V, ST> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Fixed {
    type SqlType = Untyped;
}

impl<Q, V, ST> Query for Bind<Q, V, ST> {
    type SqlType = Untyped;
}

impl<Conn> RunQueryDsl<Conn> for Fixed {}

impl<Q, V, ST, Conn> RunQueryDsl<Conn> for Bind<Q, V, ST> {}

/// A query built by diesel whose text depends on nothing but its types (never one built at run
/// time from values), prepared once per connection.
///
/// Run it with `load` or `get_result`, never `execute`: diesel's `execute` takes the statement
/// by reference, and a reference asks the statement's parts whether it may be cached, never
/// this wrapper, so an `execute` was parsed again every time (the sale's rows and trail
/// entries were, on both backends). A statement with nothing to return is [`fixed`].
pub struct Prepared<Q>(pub Q);

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

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::connection::{Instrumentation, InstrumentationEvent};
    use diesel::sql_types::{Integer, Nullable, Text};
    use diesel::{Connection, SqliteConnection};
    use std::sync::{Arc, Mutex};

    struct Kept(Arc<Mutex<Vec<String>>>);

    impl Instrumentation for Kept {
        fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
            if let InstrumentationEvent::CacheQuery { sql, .. } = event {
                self.0.lock().unwrap().push(sql.to_string());
            }
        }
    }

    #[derive(diesel::QueryableByName, Debug, PartialEq)]
    struct Row {
        #[diesel(sql_type = Integer)]
        id: i32,
        #[diesel(sql_type = Nullable<Text>)]
        note: Option<String>,
    }

    /// Run with `execute`, a fixed text with a parameter that may be `NULL` is prepared once and
    /// kept; its `?`s take the parameters in order.
    #[test]
    fn a_fixed_insert_is_prepared_once() {
        let mut c = SqliteConnection::establish(":memory:").unwrap();
        diesel::sql_query("CREATE TABLE t (id INTEGER NOT NULL, note TEXT)")
            .execute(&mut c)
            .unwrap();
        let kept = Arc::new(Mutex::new(Vec::new()));
        c.set_instrumentation(Kept(kept.clone()));
        for (id, note) in [(1, Some("one")), (2, None), (3, Some("three"))] {
            let inserted = fixed("INSERT INTO t (id, note) VALUES (?, ?)")
                .bind::<Integer, _>(id)
                .bind::<Nullable<Text>, _>(note)
                .execute(&mut c)
                .unwrap();
            assert_eq!(inserted, 1);
        }
        assert_eq!(
            *kept.lock().unwrap(),
            ["INSERT INTO t (id, note) VALUES (?, ?)"]
        );
        let rows: Vec<Row> = fixed("SELECT id, note FROM t WHERE id >= ? ORDER BY id")
            .bind::<Integer, _>(2)
            .load(&mut c)
            .unwrap();
        assert_eq!(
            rows,
            [
                Row { id: 2, note: None },
                Row {
                    id: 3,
                    note: Some("three".into())
                }
            ]
        );
    }

    /// A text and parameters that differ in number are refused, never run.
    #[test]
    fn parameters_must_match_the_text() {
        let mut c = SqliteConnection::establish(":memory:").unwrap();
        let too_few = fixed("SELECT ? + ? AS id")
            .bind::<Integer, _>(1)
            .execute(&mut c);
        assert!(matches!(
            too_few,
            Err(diesel::result::Error::QueryBuilderError(_))
        ));
        let too_many = fixed("SELECT ? AS id")
            .bind::<Integer, _>(1)
            .bind::<Integer, _>(2)
            .execute(&mut c);
        assert!(matches!(
            too_many,
            Err(diesel::result::Error::QueryBuilderError(_))
        ));
    }
}
