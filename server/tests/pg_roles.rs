//! docs/deployment.md's least-privilege roles on PostgreSQL, run as written (issue 34, item
//! 14): the owner migrates, the server serves as a role that is neither owner nor superuser,
//! and that role cannot change the audit trail. On PostgreSQL 15 the server's role could not
//! start: the start-up migration asked to create in the schema.

use diesel::{Connection, PgConnection, RunQueryDsl};
use keno_testkit::{sale, Server, Session, TestDb, MANUAL_CLOCK};
use serde_json::json;

/// The SQL block of the section on the server's role, as the operator reads it.
fn documented_sql() -> String {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/deployment.md"
    ))
    .unwrap();
    let section = doc
        .split_once("**Run the server as a role that cannot switch the triggers off.**")
        .expect("the section")
        .1;
    let block = section.split_once("```sql\n").expect("its SQL").1;
    block.split_once("```").unwrap().0.to_string()
}

/// Each statement of `sql`, comments dropped.
fn statements(sql: &str) -> Vec<String> {
    let code: String = sql
        .lines()
        .map(|l| l.split_once("--").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    code.split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn run(url: &str, sql: &[String]) {
    let mut conn = PgConnection::establish(url).unwrap();
    for statement in sql {
        diesel::sql_query(statement)
            .execute(&mut conn)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
}

#[test]
fn the_documented_least_privilege_roles_serve_on_postgresql() {
    let admin = match std::env::var("KENO_TEST_POSTGRES_URL") {
        Ok(url) => url,
        Err(_) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CI=true: KENO_TEST_POSTGRES_URL must name the PostgreSQL server")
        }
        Err(_) => return eprintln!("skipped: set KENO_TEST_POSTGRES_URL"),
    };
    let tag = keno_testkit::random_hex(4);
    let (owner, app, name) = (
        format!("keno_owner_{tag}"),
        format!("keno_app_{tag}"),
        format!("keno_roles_{tag}"),
    );
    let sql = documented_sql()
        .replace("keno_owner", &owner)
        .replace("keno_app", &app)
        .replace("CREATE DATABASE keno ", &format!("CREATE DATABASE {name} "));
    let (create, grant) = sql.split_once("-- After the first start").unwrap();
    let (scheme_user, rest) = admin.split_once('@').unwrap();
    let host = rest.split_once('/').unwrap().0;
    let scheme = scheme_user.split_once("://").unwrap().0;
    let url_as = |role: &str| format!("{scheme}://{role}@{host}/{name}");
    let _cleanup = Cleanup {
        admin: admin.clone(),
        drop: vec![
            format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            format!("DROP ROLE IF EXISTS {app}"),
            format!("DROP ROLE IF EXISTS {owner}"),
        ],
    };
    run(&admin, &statements(create));

    // The owner's first start creates and migrates the tables.
    let mut db = TestDb::existing(&url_as(&owner));
    let mut s = Server::start(&db, MANUAL_CLOCK);
    assert!(s.terminate());
    run(&url_as(&owner), &statements(&format!("--{grant}")));

    // The server's role serves and sells.
    db.url = url_as(&app);
    let writer = db.principal("writer", "JULIE", Some(("735624", "03")));
    let mut s = Server::start(&db, MANUAL_CLOCK);
    let bet = json!({"type": "standard", "spots": [1, 2]});
    s.sell(&writer, sale("r1", bet, "standard", 100, 1));
    // It cannot change the trail, even before a trigger is asked.
    let refused = Session::open(&db.url)
        .unwrap()
        .execute("UPDATE audit_log SET subject = 'x' WHERE seq = 1");
    let said = format!("{:?}", refused.unwrap_err());
    assert!(said.contains("permission denied"), "{said}");
    assert!(s.terminate());
}

/// The test's database and roles dropped however it ends: roles outlive a database.
struct Cleanup {
    admin: String,
    drop: Vec<String>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Ok(mut conn) = PgConnection::establish(&self.admin) {
            for statement in &self.drop {
                let _ = diesel::sql_query(statement).execute(&mut conn);
            }
        }
    }
}
