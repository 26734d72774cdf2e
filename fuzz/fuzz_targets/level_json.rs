//! Bytes as a level document for every registered game: verify, check, preview.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    levelforge_games::fuzzing::level_json(data);
});
