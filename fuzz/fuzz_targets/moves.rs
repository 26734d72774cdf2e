//! Bytes as moves on every registered game's fixed expert level: raw, and as edits of
//! the level's own solution.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    levelforge_games::fuzzing::moves(data);
});
