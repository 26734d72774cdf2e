//! Every difference between PostgreSQL and SQLite that the store's Rust code meets, in one
//! place (the migrations have a folder per backend). The rest of the SQL is shared.

use sqlx::query::Query;
use sqlx::{Any, Execute, QueryBuilder};

/// The database behind the `Any` pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

pub(super) type AnyQuery = Query<'static, Any, sqlx::any::AnyArguments>;

impl Backend {
    pub(super) fn of_url(url: &str) -> Backend {
        if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            Backend::Postgres
        }
    }

    /// The URL to connect with: a SQLite file is created when missing.
    pub(super) fn connect_url(self, url: &str) -> String {
        match self {
            Backend::Sqlite if !url.contains("mode=") => {
                format!("{url}{}mode=rwc", if url.contains('?') { '&' } else { '?' })
            }
            _ => url.to_string(),
        }
    }

    /// Run on each new connection: SQLite's writers wait for each other instead of
    /// failing, and it enforces foreign keys only when asked.
    pub(super) fn per_connection_sql(self) -> Option<&'static str> {
        match self {
            Backend::Postgres => None,
            Backend::Sqlite => Some("PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;"),
        }
    }

    /// Run once per database: readers and a writer at once (SQLite's write-ahead log).
    pub(super) fn per_database_sql(self) -> Option<&'static str> {
        match self {
            Backend::Postgres => None,
            Backend::Sqlite => Some("PRAGMA journal_mode = WAL"),
        }
    }

    /// The query a [`QueryBuilder`] built. sqlx's `Any` driver writes `?` placeholders,
    /// which PostgreSQL rejects, so there they become `$1`, `$2`, ... in order.
    pub(super) fn query(self, builder: &mut QueryBuilder<Any>) -> AnyQuery {
        let mut query = builder.build();
        let arguments = query.take_arguments().ok().flatten().unwrap_or_default();
        let sql = query.sql();
        let sql = match self {
            Backend::Postgres => numbered_placeholders(sql.as_str()),
            Backend::Sqlite => sql.as_str().to_string(),
        };
        sqlx::query_with(sqlx::AssertSqlSafe(sql), arguments)
    }

    /// Several upserts sent as one query, one round trip: on PostgreSQL one statement of
    /// data-modifying `WITH` clauses (`upsert_N AS (...)`, then `SELECT 1`); SQLite runs
    /// `;`-separated statements, handing each its own `?` arguments in order. The text
    /// before the `part`-th statement:
    pub(super) fn batch_before(self, part: usize) -> String {
        match (self, part) {
            (Backend::Postgres, 0) => "WITH upsert_0 AS (".into(),
            (Backend::Postgres, n) => format!(", upsert_{n} AS ("),
            (Backend::Sqlite, 0) => String::new(),
            (Backend::Sqlite, _) => "; ".into(),
        }
    }

    /// ... after each statement ...
    pub(super) fn batch_after(self) -> &'static str {
        match self {
            Backend::Postgres => ")",
            Backend::Sqlite => "",
        }
    }

    /// ... and at the end.
    pub(super) fn batch_end(self) -> &'static str {
        match self {
            Backend::Postgres => " SELECT 1",
            Backend::Sqlite => "",
        }
    }

    /// ... or, at the end of a batch whose first statement returns rows, to answer those.
    pub(super) fn batch_end_returning_first(self) -> &'static str {
        match self {
            Backend::Postgres => " SELECT * FROM upsert_0",
            Backend::Sqlite => "",
        }
    }

    /// The clock, as `created_at` stores it, and its UTC day, read by a play's first
    /// statement: the play is stamped with this reading ([`Backend::push_stamp`]), so the
    /// day of its rollup rows is known before its insert, which carries them.
    pub(super) fn clock(self) -> String {
        match self {
            // now() is the transaction's start, the same at every reading: the insert
            // reads it again, so no stamp is carried.
            Backend::Postgres => format!("'' AS stamp, {} AS day", self.day_of("now()")),
            // CURRENT_TIMESTAMP is read afresh by each statement (the same within one).
            Backend::Sqlite => format!(
                "CURRENT_TIMESTAMP AS stamp, {} AS day",
                self.day_of("CURRENT_TIMESTAMP")
            ),
        }
    }

    /// The `created_at` of a play whose transaction read the clock as `stamp` (None: it
    /// did not; the insert will fail anyway, on the missing level).
    pub(super) fn push_stamp(self, query: &mut QueryBuilder<Any>, stamp: Option<String>) {
        match (self, stamp) {
            (Backend::Postgres, _) => query.push("now()"),
            (Backend::Sqlite, Some(stamp)) => query.push_bind(stamp),
            (Backend::Sqlite, None) => query.push("CURRENT_TIMESTAMP"),
        };
    }

    /// `created_at` as RFC 3339 text: the `Any` driver decodes neither backend's time type.
    pub(super) fn created_at_text(self) -> &'static str {
        match self {
            Backend::Postgres => {
                "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
            }
            Backend::Sqlite => "strftime('%Y-%m-%dT%H:%M:%SZ', created_at)",
        }
    }

    /// The UTC day (`YYYY-MM-DD`) of a `created_at` column, as migration 0006 computes it.
    pub(super) fn day_of(self, column: &str) -> String {
        match self {
            Backend::Postgres => format!("to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')"),
            // CURRENT_TIMESTAMP text is UTC `YYYY-MM-DD HH:MM:SS`.
            Backend::Sqlite => format!("substr({column}, 1, 10)"),
        }
    }

    /// The larger of two values (SQLite's two-argument `MAX`).
    pub(super) fn greatest(self, a: &str, b: &str) -> String {
        match self {
            Backend::Postgres => format!("GREATEST({a}, {b})"),
            Backend::Sqlite => format!("MAX({a}, {b})"),
        }
    }

    /// First statement of a transaction that must see one snapshot of several tables.
    /// SQLite's read transactions are snapshots already.
    pub(super) fn snapshot_sql(self) -> Option<&'static str> {
        match self {
            Backend::Postgres => Some("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"),
            Backend::Sqlite => None,
        }
    }

    /// First statement of the rollup rebuild: no level or play may be written meanwhile.
    /// On SQLite a write that changes nothing takes the database's one write lock.
    pub(super) fn lock_raw_rows_sql(self) -> &'static str {
        match self {
            Backend::Postgres => "LOCK TABLE levels, plays IN SHARE MODE",
            Backend::Sqlite => "DELETE FROM stats_buckets WHERE bucket < 0",
        }
    }

    /// The value to bind for a nullable float column, written in SQL as
    /// `CASE WHEN <present> THEN <value> END`: sqlx 0.9's `Any` driver sends
    /// `None::<f64>` to PostgreSQL as a float4 NULL, which a statement prepared for float8
    /// rejects, so a float is always bound and the CASE makes it NULL.
    pub(super) fn nullable_float(value: Option<f64>) -> (bool, f64) {
        (value.is_some(), value.unwrap_or(0.0))
    }
}

/// `?` → `$1`, `$2`, ... outside quoted text.
fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let (mut n, mut quoted) = (0, None);
    for c in sql.chars() {
        match (c, quoted) {
            ('\'' | '"', None) => quoted = Some(c),
            (c, Some(q)) if c == q => quoted = None,
            ('?', None) => {
                n += 1;
                out += &format!("${n}");
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(
            numbered_placeholders("SELECT '?', a FROM t WHERE a = ? AND \"b?\" > ?"),
            "SELECT '?', a FROM t WHERE a = $1 AND \"b?\" > $2"
        );
    }
}
