//! Moving a whole store to another database (`levelforge copy-store`), on any pair of
//! backends. Every table of the migrated schema is listed in [`SCHEMA`] with what the copy
//! does with it: copied row by row, rebuilt from the copied rows, or skipped, with the
//! reason. A table the migrations add and [`SCHEMA`] does not list fails the test that
//! compares the two (tests/api/copy_store.rs), as does a column the row type below lacks.
//!
//! Rows travel as JSON arrays of objects whose keys are the column names (serde of the
//! row types): each backend reads them with its own JSON functions (`json_each`,
//! `jsonb_to_recordset`), one statement per batch. Times that are timestamps in the schema
//! travel as UTC text, `YYYY-MM-DD HH:MM:SS[.ffffff]`.

use std::ops::ControlFlow;

use async_trait::async_trait;
use serde::Serialize;

use crate::{Store, StoreError};

/// The tables copied row by row, in [`Table::ALL`]'s order, which every foreign key
/// follows (a play's level and player, an idempotency row's play and player, a session's
/// key, a collection entry's version and level come first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    Levels,
    Plays,
    PlayIdempotency,
    Players,
    PlayerAccounts,
    ApiKeys,
    Sessions,
    NextServed,
    Collections,
    CollectionVersions,
    CollectionEntries,
}

impl Table {
    pub const ALL: [Table; 11] = [
        Table::Levels,
        Table::PlayerAccounts,
        Table::Players,
        Table::Plays,
        Table::PlayIdempotency,
        Table::ApiKeys,
        Table::Sessions,
        Table::NextServed,
        Table::Collections,
        Table::CollectionVersions,
        Table::CollectionEntries,
    ];

    /// The table's name in the schema.
    pub fn name(self) -> &'static str {
        match self {
            Table::Levels => "levels",
            Table::Plays => "plays",
            Table::PlayIdempotency => "play_idempotency",
            Table::Players => "players",
            Table::PlayerAccounts => "player_accounts",
            Table::ApiKeys => "api_keys",
            Table::Sessions => "sessions",
            Table::NextServed => "next_served",
            Table::Collections => "collections",
            Table::CollectionVersions => "collection_versions",
            Table::CollectionEntries => "collection_entries",
        }
    }

    /// The columns the copy carries, sorted: the fields of the table's row type.
    pub fn columns(self) -> Vec<String> {
        /// The field names, sorted.
        fn fields<R: Row>() -> Vec<String> {
            let mut names: Vec<String> = match serde_json::to_value(R::default()) {
                Ok(serde_json::Value::Object(fields)) => fields.keys().cloned().collect(),
                _ => unreachable!("row types serialize as objects"),
            };
            names.sort();
            names
        }
        match self {
            Table::Levels => fields::<LevelRow>(),
            Table::Plays => fields::<PlayRow>(),
            Table::PlayIdempotency => fields::<IdempotencyRow>(),
            Table::Players => fields::<PlayerRow>(),
            Table::PlayerAccounts => fields::<AccountRow>(),
            Table::ApiKeys => fields::<KeyRow>(),
            Table::Sessions => fields::<SessionRow>(),
            Table::NextServed => fields::<ServedRow>(),
            Table::Collections => fields::<CollectionRow>(),
            Table::CollectionVersions => fields::<CollectionVersionRow>(),
            Table::CollectionEntries => fields::<CollectionEntryRow>(),
        }
    }
}

/// What the copy does with a table of the schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Every row, every column.
    Copied(Table),
    /// Recomputed on the target from the copied rows, for this reason.
    Rebuilt(&'static str),
    /// Left as the target's migrations make it, for this reason.
    Skipped(&'static str),
}

const ROLLUP: &str = "statistics rollups: rebuilt from the copied levels and plays";

/// Every table of the migrated schema, on either backend, and its fate.
pub const SCHEMA: &[(&str, Fate)] = &[
    ("levels", Fate::Copied(Table::Levels)),
    ("plays", Fate::Copied(Table::Plays)),
    ("play_idempotency", Fate::Copied(Table::PlayIdempotency)),
    ("player_accounts", Fate::Copied(Table::PlayerAccounts)),
    ("players", Fate::Copied(Table::Players)),
    ("api_keys", Fate::Copied(Table::ApiKeys)),
    ("sessions", Fate::Copied(Table::Sessions)),
    ("next_served", Fate::Copied(Table::NextServed)),
    ("collections", Fate::Copied(Table::Collections)),
    (
        "collection_versions",
        Fate::Copied(Table::CollectionVersions),
    ),
    ("collection_entries", Fate::Copied(Table::CollectionEntries)),
    ("stats_groups", Fate::Rebuilt(ROLLUP)),
    ("stats_pars", Fate::Rebuilt(ROLLUP)),
    ("stats_metrics", Fate::Rebuilt(ROLLUP)),
    ("stats_days", Fate::Rebuilt(ROLLUP)),
    ("stats_sketches", Fate::Rebuilt(ROLLUP)),
    (
        "stats_buckets",
        Fate::Skipped("constant: the migration that makes it fills it"),
    ),
    (
        "_sqlx_migrations",
        Fate::Skipped("the target applies its own migrations when it is opened"),
    ),
    (
        "sqlite_sequence",
        Fate::Skipped("SQLite's AUTOINCREMENT counters, moved by the copied play ids"),
    ),
];

/// Columns of copied tables that the target makes itself, with the reason: the copy
/// carries the rows in the order these columns give, so the target's own values keep it.
pub const DERIVED_COLUMNS: &[(&str, &str, &str)] = &[(
    "sessions",
    "opened",
    "PostgreSQL's identity, the order a key's sessions were opened in: exported in that \
     order, imported in it, made anew in it",
)];

/// The row types: what a backend's export queries fill and its import queries read.
pub trait Row: Serialize + Default + Send {}

macro_rules! rows {
    ($($row:ident),*) => { $(impl Row for $row {})* };
}
rows!(
    LevelRow,
    PlayRow,
    IdempotencyRow,
    PlayerRow,
    AccountRow,
    KeyRow,
    SessionRow,
    ServedRow,
    CollectionRow,
    CollectionVersionRow,
    CollectionEntryRow
);

/// A row of `levels`.
#[derive(Debug, Default, Serialize)]
pub struct LevelRow {
    pub game: String,
    pub difficulty: String,
    pub seed: i64,
    pub version: i64,
    pub par: i64,
    pub attempts: i64,
    pub generate_ms: i64,
    pub solve_ms: i64,
    pub states: i64,
    pub solution_count: i64,
    pub metrics: String,
    pub level: String,
    pub created_at: String,
    pub rating: f64,
    pub rating_deviation: f64,
    pub rating_volatility: f64,
    pub rated_plays: i64,
    pub prior_rating: Option<f64>,
}

/// A row of `plays`, its id kept: idempotency rows and their stored answers name it.
#[derive(Debug, Default, Serialize)]
pub struct PlayRow {
    pub id: i64,
    pub game: String,
    pub difficulty: String,
    pub seed: i64,
    pub solved_claimed: bool,
    pub status: String,
    pub moves: String,
    pub moves_used: i64,
    pub time_ms: Option<i64>,
    pub client: Option<String>,
    pub created_at: String,
    pub rated: bool,
    pub level_rating: Option<f64>,
}

/// A row of `play_idempotency`.
#[derive(Debug, Default, Serialize)]
pub struct IdempotencyRow {
    pub key: String,
    pub play_id: i64,
    pub fingerprint: String,
    pub answer: String,
    pub created_at: String,
    /// The player whose key it is; `None`: an anonymous caller's.
    pub client: Option<String>,
}

/// A row of `players`: one game's rating of a player.
#[derive(Debug, Default, Serialize)]
pub struct PlayerRow {
    pub game: String,
    pub client: String,
    pub rating: f64,
    pub rating_deviation: f64,
    pub rating_volatility: f64,
    pub rated_plays: i64,
}

/// A row of `player_accounts`: the player's token as its hash.
#[derive(Debug, Default, Serialize)]
pub struct AccountRow {
    pub id: String,
    pub token_hash: String,
    pub created_at: i64,
}

/// A row of `api_keys`: the key as its hash.
#[derive(Debug, Default, Serialize)]
pub struct KeyRow {
    pub id: String,
    pub name: String,
    pub role: String,
    pub secret_hash: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// A row of `sessions`: a dashboard sign-in as its hash.
#[derive(Debug, Default, Serialize)]
pub struct SessionRow {
    pub id: String,
    pub secret_hash: String,
    pub key_id: String,
    pub created_at: i64,
    pub expires_at: i64,
}

/// A row of `next_served`.
#[derive(Debug, Default, Serialize)]
pub struct ServedRow {
    pub client: String,
    pub game: String,
    pub difficulty: String,
    pub seed: i64,
    pub served_at: i64,
}

/// A row of `collections`.
#[derive(Debug, Default, Serialize)]
pub struct CollectionRow {
    pub slug: String,
    pub latest_version: i64,
    pub listed: bool,
}

/// A row of `collection_versions`: the manifest travels as the bytes served.
#[derive(Debug, Default, Serialize)]
pub struct CollectionVersionRow {
    pub slug: String,
    pub version: i64,
    pub game: String,
    pub title: String,
    pub size: i64,
    pub manifest: String,
    pub published_at: i64,
}

/// A row of `collection_entries`.
#[derive(Debug, Default, Serialize)]
pub struct CollectionEntryRow {
    pub slug: String,
    pub version: i64,
    pub position: i64,
    pub game: String,
    pub difficulty: String,
    pub seed: i64,
}

/// Rows of one table on their way to the target: a JSON array of row objects.
#[derive(Debug)]
pub struct Batch {
    pub table: Table,
    pub rows: usize,
    pub json: String,
}

impl Batch {
    pub fn of<R: Row>(table: Table, rows: &[R]) -> Batch {
        Batch {
            table,
            rows: rows.len(),
            json: serde_json::to_string(rows).expect("rows serialize"),
        }
    }
}

/// How many rows each copied table holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableCounts {
    pub levels: i64,
    pub plays: i64,
    pub play_idempotency: i64,
    pub players: i64,
    pub player_accounts: i64,
    pub api_keys: i64,
    pub sessions: i64,
    pub next_served: i64,
    pub collections: i64,
    pub collection_versions: i64,
    pub collection_entries: i64,
}

impl TableCounts {
    pub fn of(&self, table: Table) -> i64 {
        match table {
            Table::Levels => self.levels,
            Table::Plays => self.plays,
            Table::PlayIdempotency => self.play_idempotency,
            Table::Players => self.players,
            Table::PlayerAccounts => self.player_accounts,
            Table::ApiKeys => self.api_keys,
            Table::Sessions => self.sessions,
            Table::NextServed => self.next_served,
            Table::Collections => self.collections,
            Table::CollectionVersions => self.collection_versions,
            Table::CollectionEntries => self.collection_entries,
        }
    }

    pub fn total(&self) -> i64 {
        Table::ALL.iter().map(|&t| self.of(t)).sum()
    }
}

/// Where exported batches go; `Break` stops the export after this batch.
#[async_trait]
pub trait BatchSink: Send {
    async fn accept(&mut self, batch: Batch) -> Result<ControlFlow<()>, StoreError>;
}

/// What `copy-store` needs of a backend besides [`Store`] (whose `rebuild_rollups`
/// rebuilds the target's statistics once the rows are in).
#[async_trait]
pub trait CopyStore: Store {
    /// Reads `tables` in one snapshot, each in primary-key order, and hands their rows to
    /// `sink` in batches of at most `batch_rows`; `Break` when the sink stopped it.
    async fn export(
        &self,
        tables: &[Table],
        batch_rows: usize,
        sink: &mut dyn BatchSink,
    ) -> Result<ControlFlow<()>, StoreError>;
    /// Writes a batch in one transaction; a row whose key the table holds already is left
    /// as it is (so a copy run again after an interruption writes only what is missing).
    /// Returns the rows written.
    async fn import(&self, batch: &Batch) -> Result<u64, StoreError>;
    async fn table_counts(&self) -> Result<TableCounts, StoreError>;
    /// After the last batch: what the backend derives from the copied rows (the next play
    /// id).
    async fn finish_import(&self) -> Result<(), StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_copied_table_is_in_the_schema_once_and_in_foreign_key_order() {
        for table in Table::ALL {
            let listed: Vec<_> = SCHEMA
                .iter()
                .filter(|(name, _)| *name == table.name())
                .collect();
            assert_eq!(listed, [&(table.name(), Fate::Copied(table))]);
        }
        let position = |t: Table| Table::ALL.iter().position(|&x| x == t).unwrap();
        assert!(position(Table::Levels) < position(Table::Plays));
        assert!(position(Table::PlayerAccounts) < position(Table::Plays));
        assert!(position(Table::PlayerAccounts) < position(Table::Players));
        assert!(position(Table::Plays) < position(Table::PlayIdempotency));
        assert!(position(Table::ApiKeys) < position(Table::Sessions));
        assert!(position(Table::Collections) < position(Table::CollectionVersions));
        assert!(position(Table::CollectionVersions) < position(Table::CollectionEntries));
        assert!(position(Table::Levels) < position(Table::CollectionEntries));
    }

    #[test]
    fn a_batch_is_a_json_array_of_rows_named_by_column() {
        let rows = [ServedRow {
            client: "p1".into(),
            game: "fruit".into(),
            difficulty: "easy".into(),
            seed: -3,
            served_at: 7,
        }];
        let batch = Batch::of(Table::NextServed, &rows);
        assert_eq!(batch.rows, 1);
        assert_eq!(
            batch.json,
            r#"[{"client":"p1","game":"fruit","difficulty":"easy","seed":-3,"served_at":7}]"#
        );
        assert_eq!(
            Table::NextServed.columns(),
            ["client", "difficulty", "game", "seed", "served_at"]
        );
    }
}
