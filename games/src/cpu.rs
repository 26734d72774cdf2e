//! What the CPU offers beyond the baseline x86-64 these crates are built for, detected at
//! run time. A solver's search is compiled a second time with `#[target_feature]` for
//! these instructions and takes that copy only where the CPU has them; the results are
//! the same either way.

/// Whether the CPU has the bit instructions of x86-64 CPUs since 2013 (BMI1, BMI2,
/// POPCNT, LZCNT: bit scans, popcounts, shifts by a register and `pext`/`pdep` in one
/// instruction each), the set the solvers' second copies are compiled for.
#[cfg(target_arch = "x86_64")]
pub fn bit_instructions() -> bool {
    std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("lzcnt")
}
