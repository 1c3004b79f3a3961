//! Writes one of `navlab::input::scene`'s generated levels as OBJ, with the parameters of the
//! sample level in `assets/Meshes/` of the same name, so each sample can be written again exactly.
//!
//! `cargo run --release --no-default-features --example write_scene -- SCENE PATH`, SCENE one of
//! `default` (the viewer's built-in scene), `city` (`city(4)`), `garage` (`garage(5, 60.0, 2.5)`),
//! `terrain` (`terrain(100.0, 100)`), `spiral_ramp` (`spiral_ramp(3, 4.0)`) or `terraces`
//! (`terraces(&[0.5, 1.5, 3.0], &[1.0, 2.0, 4.0])`).

use navlab::input::scene;

fn main() -> navlab::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || -> ! {
        eprintln!("usage: write_scene default|city|garage|terrain|spiral_ramp|terraces PATH");
        std::process::exit(2)
    };
    let [name, path] = args.as_slice() else {
        usage()
    };
    let mesh = match name.as_str() {
        "default" => scene::default_scene(),
        "city" => scene::city(4),
        "garage" => scene::garage(5, 60.0, 2.5),
        "terrain" => scene::terrain(100.0, 100),
        "spiral_ramp" => scene::spiral_ramp(3, 4.0),
        "terraces" => scene::terraces(&[0.5, 1.5, 3.0], &[1.0, 2.0, 4.0]),
        _ => usage(),
    };
    let text = scene::obj_text(&mesh);
    Ok(navlab::file::write_atomically(
        path.as_ref(),
        text.as_bytes(),
    )?)
}
