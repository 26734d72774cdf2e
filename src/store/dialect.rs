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

    /// The `metrics` text column parsed once per row, to read several keys from as
    /// `parsed` with [`Backend::metric_number`].
    pub(super) fn parsed_metrics(self) -> &'static str {
        match self {
            Backend::Postgres => "metrics::jsonb",
            // SQLite's json functions take the text and cache its parse within a statement.
            Backend::Sqlite => "metrics",
        }
    }

    /// A number or boolean (as 0 or 1) key of the parsed metrics `parsed` as a float,
    /// NULL where the level has none or it is of another type. `key` comes from game code.
    pub(super) fn metric_number(self, parsed: &str, key: &str) -> String {
        assert!(
            !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "metric names are snake_case constants: {key:?}"
        );
        match self {
            Backend::Postgres => format!(
                "(CASE jsonb_typeof({parsed} -> '{key}') \
                 WHEN 'number' THEN ({parsed} ->> '{key}')::double precision \
                 WHEN 'boolean' THEN CASE WHEN ({parsed} ->> '{key}')::boolean \
                 THEN 1.0 ELSE 0.0 END END)"
            ),
            Backend::Sqlite => format!(
                "(CASE json_type({parsed}, '$.{key}') \
                 WHEN 'integer' THEN CAST(json_extract({parsed}, '$.{key}') AS REAL) \
                 WHEN 'real' THEN json_extract({parsed}, '$.{key}') \
                 WHEN 'true' THEN 1.0 WHEN 'false' THEN 0.0 END)"
            ),
        }
    }

    /// Whether nearest-rank percentiles can be computed in one pass (`percentile_disc`);
    /// SQLite has none, so there each rank is read with `ORDER BY .. LIMIT 1 OFFSET`.
    pub(super) fn has_percentiles(self) -> bool {
        self == Backend::Postgres
    }
}
