//! Fuzzes the session-script reader (`navlab view --session`): any text gives actions or one
//! printable error naming its line; actions print back to lines that parse to the same actions.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navlab_app::session_script::{action_line, parse_script};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let script = match parse_script(text) {
        Ok(script) => script,
        Err(err) => {
            assert!(
                err.line >= 1 && err.line <= text.lines().count().max(1),
                "{err}"
            );
            assert!(!err.to_string().contains(['\n', '\r']), "{err}");
            return;
        }
    };
    let printed: String = script
        .iter()
        .map(|l| action_line(&l.action) + "\n")
        .collect();
    let again = parse_script(&printed).expect("printed actions parse");
    let actions = |s: &[navlab_app::session_script::ScriptLine]| {
        s.iter().map(|l| l.action.clone()).collect::<Vec<_>>()
    };
    assert_eq!(actions(&again), actions(&script));
});
