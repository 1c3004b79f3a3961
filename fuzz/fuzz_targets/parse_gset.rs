//! Fuzzes the `.gset` reader: any bytes give a typed one-line, printable error or a set whose
//! bounds are ordered and whose settings apply, and which writes out and reads back to the same
//! set and the same text.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use navlab::bake::settings::BuildSettings;
use navlab::input::GeomSet;

fuzz_target!(|data: &[u8]| {
    let source = Path::new("fuzz.gset");
    let set = match GeomSet::parse(data, source) {
        Ok(set) => set,
        Err(err) => {
            assert!(!err.to_string().contains(char::is_control), "{err}");
            return;
        }
    };
    if let Some(saved) = &set.settings {
        assert!((0..3).all(|k| saved.nav_mesh_bmin[k] <= saved.nav_mesh_bmax[k]));
        let mut settings = BuildSettings::default();
        settings.apply_geom_set(saved);
        if settings.validate().is_ok() {
            let _ = settings.to_config(saved.nav_mesh_bmin, saved.nav_mesh_bmax);
        }
    }
    let text = set.to_gset_string();
    let again = GeomSet::parse(text.as_bytes(), source).expect("a written set reads back");
    assert_eq!(again, set);
    assert_eq!(again.to_gset_string(), text);
});
