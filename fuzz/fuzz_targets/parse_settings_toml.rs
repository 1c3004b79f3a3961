//! Fuzzes the settings TOML reader: any bytes give a typed one-line, printable error or valid
//! settings, which write out and read back to the same settings and derive a config without
//! panicking.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use navlab::bake::settings::BuildSettings;

fuzz_target!(|data: &[u8]| {
    let source = Path::new("fuzz.toml");
    let settings = match BuildSettings::parse_toml(data, source) {
        Ok(settings) => settings,
        Err(err) => {
            assert!(!err.to_string().contains(char::is_control), "{err}");
            return;
        }
    };
    let text = settings.to_toml_string();
    let again =
        BuildSettings::parse_toml(text.as_bytes(), source).expect("written settings read back");
    assert_eq!(again, settings);
    let _ = settings.to_config([-5.0, 0.0, -5.0], [5.0, 2.0, 5.0]);
});
