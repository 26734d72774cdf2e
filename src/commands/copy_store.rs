//! `levelforge copy-store --from URL --to URL`: a whole store moved to another database,
//! on any pair of backends (a studio outgrowing the embedded SQLite moves to PostgreSQL).
//!
//! The source is read in one snapshot; each table's rows go over in batches, one
//! transaction each, insert-if-absent, so a copy stopped anywhere and run again with
//! `--resume` writes only what is missing. Then the target's statistics rollups are
//! rebuilt from the copied rows and every table's count is compared with the source's.
//! Which tables are copied, rebuilt or skipped: `levelforge_store::copy::SCHEMA`.

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail, ensure};
use async_trait::async_trait;
use indicatif::{ProgressBar, ProgressStyle};
use levelforge_store::copy::{Batch, BatchSink, CopyStore, Table, TableCounts};
use levelforge_store_postgres::PgStore;
use levelforge_store_sqlite::SqliteStore;

use crate::config::CopyStoreArgs;
use crate::service::store::{Backend, StoreError};

/// Connections each side uses: the copy is one reader and one writer.
const CONNECTIONS: u32 = 2;
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a copy is, after each batch.
#[derive(Clone, Debug)]
pub struct Progress {
    pub table: Table,
    /// Rows read from the source so far, all tables.
    pub rows: u64,
    /// Rows the target did not hold yet, written so far.
    pub written: u64,
    /// Rows the source holds, all tables.
    pub total: u64,
}

/// How a copy ended.
#[derive(Debug)]
pub enum Outcome {
    /// Every row is in the target, whose rollups are rebuilt: the counts of both.
    Done(TableCounts),
    /// The progress callback stopped it; the batches written so far stay.
    Stopped(Progress),
}

/// `levelforge copy-store`: the copy with a progress bar, then a count per table.
pub async fn run(args: &CopyStoreArgs) -> anyhow::Result<()> {
    ensure!(args.from != args.to, "--from and --to name the same store");
    let source = open_source(&args.from).await?;
    let target = open_target(&args.to).await?;
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} rows, {per_sec}, eta {eta} {msg}")
            .expect("template"),
    );
    let outcome = copy(
        &*source,
        &*target,
        args.batch_rows as usize,
        args.resume,
        |p| {
            bar.set_length(p.total);
            bar.set_position(p.rows);
            bar.set_message(p.table.name());
            ControlFlow::Continue(())
        },
    )
    .await;
    bar.finish_and_clear();
    let counts = match outcome? {
        Outcome::Done(counts) => counts,
        Outcome::Stopped(progress) => bail!("stopped after {} rows", progress.rows),
    };
    println!("copied {} to {}", redacted(&args.from), redacted(&args.to));
    for table in Table::ALL {
        println!("  {:<18}{:>12} rows", table.name(), counts.of(table));
    }
    println!("  statistics rollups rebuilt from the copied levels and plays");
    Ok(())
}

/// Copies every row of `source` into `target`, which must be empty unless `resume`;
/// `on_batch` sees each batch written and may stop the copy.
pub async fn copy(
    source: &dyn CopyStore,
    target: &dyn CopyStore,
    batch_rows: usize,
    resume: bool,
    on_batch: impl FnMut(&Progress) -> ControlFlow<()> + Send,
) -> anyhow::Result<Outcome> {
    let expected = source.table_counts().await?;
    let already = target.table_counts().await?;
    if already.total() > 0 && !resume {
        bail!(
            "the target is not empty ({}): copy-store fills an empty store; \
             --resume continues a copy of this same source that was interrupted",
            describe(&already)
        );
    }
    let mut sink = IntoTarget {
        target,
        on_batch,
        progress: Progress {
            table: Table::ALL[0],
            rows: 0,
            written: 0,
            total: expected.total() as u64,
        },
    };
    if source
        .export(&Table::ALL, batch_rows, &mut sink)
        .await?
        .is_break()
    {
        return Ok(Outcome::Stopped(sink.progress));
    }
    target.finish_import().await?;
    let copied = target.table_counts().await?;
    if copied != expected {
        bail!(
            "the target holds other rows than the source: source {}, target {}",
            describe(&expected),
            describe(&copied)
        );
    }
    target.rebuild_rollups().await?;
    Ok(Outcome::Done(copied))
}

/// Writes each batch to the target, then reports to the callback.
struct IntoTarget<'a, F> {
    target: &'a dyn CopyStore,
    on_batch: F,
    progress: Progress,
}

#[async_trait]
impl<F: FnMut(&Progress) -> ControlFlow<()> + Send> BatchSink for IntoTarget<'_, F> {
    async fn accept(&mut self, batch: Batch) -> Result<ControlFlow<()>, StoreError> {
        let written = self.target.import(&batch).await?;
        self.progress.table = batch.table;
        self.progress.rows += batch.rows as u64;
        self.progress.written += written;
        Ok((self.on_batch)(&self.progress))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Source,
    Target,
}

/// The store to copy from, its migrations applied; a missing SQLite file is an error (a
/// mistyped path must not copy an empty store).
pub async fn open_source(url: &str) -> anyhow::Result<Arc<dyn CopyStore>> {
    open(url, Side::Source)
        .await
        .with_context(|| format!("opening the source {}", redacted(url)))
}

/// The store to copy into, its migrations applied; a SQLite file is made when missing.
pub async fn open_target(url: &str) -> anyhow::Result<Arc<dyn CopyStore>> {
    open(url, Side::Target)
        .await
        .with_context(|| format!("opening the target {}", redacted(url)))
}

async fn open(url: &str, side: Side) -> anyhow::Result<Arc<dyn CopyStore>> {
    let store: Arc<dyn CopyStore> = match Backend::of_url(url) {
        Backend::Postgres => Arc::new(PgStore::connect(url, CONNECTIONS, ACQUIRE_TIMEOUT).await?),
        Backend::Sqlite => {
            if side == Side::Source {
                let file = sqlite_file(url);
                ensure!(
                    file == ":memory:" || Path::new(file).exists(),
                    "no SQLite file at {file}"
                );
            }
            Arc::new(SqliteStore::connect(url, CONNECTIONS, ACQUIRE_TIMEOUT).await?)
        }
    };
    Ok(store)
}

/// The file of a `sqlite://FILE?options` or `sqlite:FILE` URL.
fn sqlite_file(url: &str) -> &str {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    rest.split('?').next().unwrap_or(rest)
}

/// The URL without its password, for printing.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((user_info, host)) if user_info.contains(':') => {
            let user = user_info.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_string(),
    }
}

/// `levels 12, plays 40, ...`: the tables with rows.
fn describe(counts: &TableCounts) -> String {
    let listed: Vec<String> = Table::ALL
        .iter()
        .filter(|&&t| counts.of(t) > 0)
        .map(|&t| format!("{} {}", t.name(), counts.of(t)))
        .collect();
    if listed.is_empty() {
        "no rows".to_string()
    } else {
        listed.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_printed() {
        assert_eq!(
            redacted("postgres://levelforge:s3cret@db:5432/levelforge"),
            "postgres://levelforge:***@db:5432/levelforge"
        );
        assert_eq!(
            redacted("postgres://db/levelforge"),
            "postgres://db/levelforge"
        );
        assert_eq!(redacted("sqlite://levelforge.db"), "sqlite://levelforge.db");
    }

    #[test]
    fn sqlite_urls_name_their_file() {
        assert_eq!(
            sqlite_file("sqlite://data/levelforge.db"),
            "data/levelforge.db"
        );
        assert_eq!(
            sqlite_file("sqlite:levelforge.db?mode=rwc"),
            "levelforge.db"
        );
        assert_eq!(sqlite_file("sqlite:///abs/x.db"), "/abs/x.db");
    }
}
