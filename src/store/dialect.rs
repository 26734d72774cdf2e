//! Every SQL difference between PostgreSQL and SQLite that the queries need, in one place.
//! The rest of the SQL is shared (`$N` placeholders work on both through the `Any` driver).

use super::sql::Backend;

impl Backend {
    /// `created_at` as RFC 3339 text: the `Any` driver decodes neither backend's time type.
    pub(super) fn created_at_text(self) -> &'static str {
        match self {
            Backend::Postgres => {
                "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
            }
            Backend::Sqlite => "strftime('%Y-%m-%dT%H:%M:%SZ', created_at)",
        }
    }

    /// An integer key of the `metrics` JSON text column, NULL where the level has none.
    /// `key` is a constant of this crate, never input.
    pub(super) fn metric(self, key: &'static str) -> String {
        match self {
            Backend::Postgres => format!("(metrics::jsonb ->> '{key}')::bigint"),
            Backend::Sqlite => format!("json_extract(metrics, '$.{key}')"),
        }
    }

    /// Whether nearest-rank percentiles can be computed in SQL (`percentile_disc`);
    /// SQLite has no percentile function, so there the sorted column is fetched and the
    /// same definition is applied in Rust.
    pub(super) fn has_percentiles(self) -> bool {
        self == Backend::Postgres
    }
}
