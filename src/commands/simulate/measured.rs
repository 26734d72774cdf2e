//! What a simulation measures, which its report and the convergence figures read.

use crate::service::rating::{Rating, Standing};

/// What the bots' plays gave: `solved[level][bot]`, each level's rating, and each
/// bot's standing.
pub struct Measured {
    pub solved: Vec<Vec<bool>>,
    pub ratings: Vec<Rating>,
    pub bots: Vec<Standing>,
}
