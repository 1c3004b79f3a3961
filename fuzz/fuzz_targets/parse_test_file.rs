//! Fuzzes the test-case file parser (`TestFile::parse_checked`, what `navlab test`, `navlab
//! crowd` and the viewer read): any text must give a file or an error naming a line inside it,
//! never more than `MAX_TEST_LINES` test lines, and the unchecked parse must keep the same
//! lines whenever the checked one accepts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab_app::demo::text::{MAX_TEST_LINES, TestFile};

fuzz_target!(|text: &str| {
    let lines = text.split('\n').count();
    match TestFile::parse_checked(text) {
        Ok(file) => {
            assert!(file.tests.len() <= MAX_TEST_LINES);
            assert_eq!(TestFile::parse(text), file);
        }
        Err(err) => assert!((1..=lines).contains(&err.line), "{err}"),
    }
    assert!(TestFile::parse(text).tests.len() <= MAX_TEST_LINES);
});
