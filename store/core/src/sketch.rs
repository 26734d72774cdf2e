//! Log-bucketed histograms of whole milliseconds, after DDSketch (Masson, Rim and Lee,
//! "DDSketch: A Fast and Fully-Mergeable Quantile Sketch with Relative-Error Guarantees",
//! VLDB 2019): bucket k holds the values in (γ^(k-1), γ^k] with γ = (1 + α) / (1 - α), so
//! any value of a bucket is within α of the bucket's representative. Buckets of different
//! groups, days or replicas merge by adding counts.
//!
//! Here α = 0.5 %, and values are whole numbers: the representative is rounded to one,
//! which costs at most another 0.5 % (below 100 every bucket holds at most one whole
//! number, and that number is returned exactly). So a percentile read from the buckets is
//! within 1 % of the exact nearest-rank value. Kept here rather than taken from a crate
//! because the bucket bounds must match migration 0005's `stats_buckets` table bit for bit.

use std::sync::LazyLock;

/// γ, computed as migration 0005 computes it.
const GAMMA: f64 = 1.005 / 0.995;

/// The largest whole number of each bucket: floor(γ^k), by repeated multiplication as in
/// migration 0005 (the last bound is past 9e18, so every i64 value has a bucket).
static UPPERS: LazyLock<Vec<i64>> = LazyLock::new(|| {
    let mut uppers = Vec::new();
    let mut g: f64 = 1.0;
    loop {
        uppers.push(g.floor() as i64);
        if g >= 9.0e18 {
            return uppers;
        }
        g *= GAMMA;
    }
});

/// The bucket of a value; zero and below share bucket -1.
pub fn bucket(value: i64) -> i64 {
    if value <= 0 {
        return -1;
    }
    UPPERS.partition_point(|&upper| upper < value) as i64
}

/// The whole number that stands for a bucket's values: the one whose largest relative
/// distance to the bucket's ends is smallest.
pub fn representative(bucket: i64) -> i64 {
    let Ok(k) = usize::try_from(bucket) else {
        return 0;
    };
    let Some(&hi) = UPPERS.get(k) else {
        return i64::MAX;
    };
    let lo = if k == 0 { 1 } else { UPPERS[k - 1] + 1 };
    if lo >= hi {
        return hi;
    }
    let (lo_f, hi_f) = (lo as f64, hi as f64);
    let mid = (2.0 * lo_f * hi_f / (lo_f + hi_f)).round() as i64;
    mid.clamp(lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(value: i64) -> f64 {
        let got = representative(bucket(value));
        (got - value).abs() as f64 / value as f64
    }

    #[test]
    fn every_value_is_within_one_percent_of_its_representative() {
        assert_eq!(representative(bucket(0)), 0);
        for value in 1..=200_000 {
            assert!(error(value) <= 0.01, "{value}: {}", error(value));
        }
        let mut value: i64 = 200_000;
        while value < i64::MAX {
            for v in [value, value + 1, value.saturating_add(value / 2)] {
                assert!(error(v) <= 0.01, "{v}: {}", error(v));
            }
            value = value.saturating_add(value / 20);
        }
        assert!(error(i64::MAX) <= 0.01);
    }

    #[test]
    fn small_values_are_exact_and_buckets_ascend() {
        for value in 1..100 {
            assert_eq!(representative(bucket(value)), value);
        }
        let buckets: Vec<i64> = (0..10_000).map(bucket).collect();
        assert!(buckets.windows(2).all(|w| w[0] <= w[1]));
    }
}
