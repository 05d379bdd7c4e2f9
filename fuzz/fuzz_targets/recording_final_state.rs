#![no_main]
//! See `stepline_fuzz::checks::recording_final_state` for what is checked.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| stepline_fuzz::checks::recording_final_state(data));
