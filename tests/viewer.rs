//! End-to-end tests of `navlab view`: headless screenshots (no X server; Mesa's software Vulkan)
//! and one real window under Xvfb. They need a Vulkan driver and, for the window, `xvfb-run`;
//! without them they print a notice and pass, unless NAVLAB_REQUIRE_VIEWER=1 (CI sets it).

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support as common;

fn required() -> bool {
    std::env::var_os("NAVLAB_REQUIRE_VIEWER").is_some_and(|v| v == "1")
}

/// A scratch directory of one test (tests run in parallel and each removes its own).
fn out_dir(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("navlab-viewer-test-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn vulkan_available() -> bool {
    let found = ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"]
        .iter()
        .any(|dir| std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()));
    if !found && !required() {
        eprintln!("note: no Vulkan driver installed (mesa-vulkan-drivers); skipping");
    }
    found || required()
}

/// Decodes an RGB or RGBA PNG into RGB triples.
fn read_png(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, pixels)
}

/// RecastDemo's navmesh blue (0, 192, 255) at a quarter opacity over the grey input mesh (about
/// (125, 145, 160)): blue clearly above red, green above red.
fn is_navmesh_blue(p: &[u8; 3]) -> bool {
    let [r, g, b] = p.map(i32::from);
    b >= r + 25 && g >= r + 10
}

fn screenshot(mode: &str, out: &Path, extra: &[&std::ffi::OsStr]) {
    let status = Command::new(env!("CARGO_BIN_EXE_navlab"))
        .arg("view")
        .args(extra)
        .args([
            "--draw",
            mode,
            "--size",
            "1280x800",
            "--frames",
            "3",
            "--screenshot",
        ])
        .arg(out)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .status()
        .expect("navlab runs");
    assert!(
        status.success(),
        "navlab view --draw {mode} failed: {status}"
    );
}

#[test]
fn headless_screenshots_are_not_blank() {
    if !vulkan_available() {
        return;
    }
    let dir = out_dir("headless_screenshots_are_not_blank");
    for (mode, expect_navmesh_blue) in [
        ("navmesh", true),
        ("poly-mesh", true),
        ("compact-regions", false),
    ] {
        let path = dir.join(format!("{mode}.png"));
        screenshot(mode, &path, &[]);
        let (width, height, pixels) = read_png(&path);
        assert_eq!((width, height), (1280, 800));
        let mut colours: Vec<[u8; 3]> = pixels.clone();
        colours.sort_unstable();
        colours.dedup();
        assert!(colours.len() > 50, "{mode}: only {} colours", colours.len());
        let blue = pixels.iter().filter(|p| is_navmesh_blue(p)).count();
        if expect_navmesh_blue {
            assert!(
                blue * 100 > pixels.len(),
                "{mode}: navmesh blue on {blue} of {} pixels",
                pixels.len()
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// In Tile Mesh, `--tile X,Y` builds one tile as Create Tiles does, and a stage draw mode then
/// shows that tile's stage (a build of the whole grid keeps none).
#[test]
fn a_tile_built_by_create_tiles_shows_its_stages() {
    if !vulkan_available() {
        return;
    }
    let dir = out_dir("a_tile_built_by_create_tiles_shows_its_stages");
    let colours = |extra: &[&std::ffi::OsStr], name: &str| {
        let path = dir.join(name);
        screenshot("compact-regions", &path, extra);
        let (_, _, mut pixels) = read_png(&path);
        pixels.sort_unstable();
        pixels.dedup();
        pixels.len()
    };
    let grid_only = colours(&["--tile-size".as_ref(), "32".as_ref()], "grid.png");
    let with_tile = colours(
        &[
            "--tile-size".as_ref(),
            "32".as_ref(),
            "--tile".as_ref(),
            "2,2".as_ref(),
        ],
        "tile.png",
    );
    assert!(
        with_tile > grid_only + 20,
        "the tile's regions add colours: {with_tile} against {grid_only}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A navmesh file made by C++ RecastDemo, drawn alone ("Navmesh Trans" hides the scene's
/// mesh): its polygons must show in navmesh blue.
#[test]
fn a_cpp_navmesh_file_is_drawn_without_its_mesh() {
    if !vulkan_available() {
        return;
    }
    let Some(reference) = common::reference_dir() else {
        return;
    };
    let file = reference.join("navmesh/nav_test_tiled32.bin");
    let dir = out_dir("a_cpp_navmesh_file_is_drawn_without_its_mesh");
    let path = dir.join("loaded.png");
    screenshot(
        "navmesh-trans",
        &path,
        &["--navmesh".as_ref(), file.as_os_str()],
    );
    let (_, _, pixels) = read_png(&path);
    let blue = pixels.iter().filter(|p| is_navmesh_blue(p)).count();
    assert!(
        blue * 50 > pixels.len(),
        "navmesh blue on {blue} of {} pixels",
        pixels.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_mesh_fails_the_screenshot_with_a_clear_error() {
    let dir = out_dir("a_bad_mesh_fails_the_screenshot_with_a_clear_error");
    let bad = dir.join("bad.obj");
    std::fs::write(&bad, "v 1 2\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_navlab"))
        .arg("view")
        .arg(&bad)
        .args(["--screenshot", "never.png"])
        .output()
        .expect("navlab runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.obj") && stderr.contains("line 1"),
        "{stderr}"
    );

    let output = Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(["view", "--tile-size", "3", "--screenshot", "never.png"])
        .output()
        .expect("navlab runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("tile-size"), "{stderr}");

    let bad_navmesh = dir.join("bad.bin");
    std::fs::write(&bad_navmesh, b"MSET").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(["view", "--navmesh"])
        .arg(&bad_navmesh)
        .args(["--screenshot", "never.png"])
        .output()
        .expect("navlab runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.bin"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `xvfb-run -a` takes the first display number without a lock file, and two started at once
/// can take the same one (the second's viewer then fails with `XOpenDisplayFailed`, seen in CI):
/// the real-window tests take turns.
static ONE_XVFB: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn real_window_rebuilds_after_a_setting_change() {
    if !vulkan_available() {
        return;
    }
    let xvfb = Command::new("xvfb-run").arg("--help").output().is_ok();
    if !xvfb {
        assert!(!required(), "xvfb-run is missing");
        eprintln!("note: xvfb-run is not installed; skipping the real-window test");
        return;
    }
    let dir = out_dir("real_window_rebuilds_after_a_setting_change");
    let shot = dir.join("window.png");
    let _turn = ONE_XVFB.lock().unwrap_or_else(|e| e.into_inner());
    let output = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(env!("CARGO_BIN_EXE_navlab"))
        .args(["view", "--self-test"])
        .arg(&shot)
        .output()
        .expect("xvfb-run runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("rebuilt from Rasterize"), "{stdout}");
    let (_, _, pixels) = read_png(&shot);
    assert!(pixels.iter().any(is_navmesh_blue));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without a display server the window cannot open: one line saying so and what to use
/// instead, exit code 1, no backtrace.
#[test]
fn no_display_is_one_clear_line() {
    let output = Command::new(env!("CARGO_BIN_EXE_navlab"))
        .arg("view")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no display") && stderr.contains("--screenshot"),
        "{stderr}"
    );
}

/// Without any Vulkan driver the renderer finds no adapter: one line, exit code 1.
#[test]
fn no_graphics_adapter_is_one_clear_line() {
    let dir = out_dir("no-adapter");
    let output = Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(["view", "--screenshot"])
        .arg(dir.join("never.png"))
        .env("VK_ICD_FILENAMES", dir.join("no-such-icd.json"))
        .env("VK_DRIVER_FILES", dir.join("no-such-icd.json"))
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("navlab:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("graphics adapter"), "{stderr}");
    assert!(!stderr.contains("stack backtrace"), "{stderr}");
}

/// A real window under Xvfb, driven by xdotool as a person drives it: Esc with the File menu
/// open closes the menu and the viewer runs on; Esc again quits. `--record` wrote the person's
/// input as a session and `--state-json` the state at the quit.
#[test]
fn real_window_takes_xdotool_input_and_records_it() {
    if !vulkan_available() {
        return;
    }
    let tools = ["xvfb-run", "xdotool"].iter().all(|tool| {
        Command::new("which")
            .arg(tool)
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !tools {
        assert!(!required(), "xvfb-run or xdotool is missing");
        eprintln!("note: xvfb-run or xdotool is not installed; skipping");
        return;
    }
    let dir = out_dir("real_window_takes_xdotool_input_and_records_it");
    let state = dir.join("state.json");
    let record = dir.join("recorded.jsonl");
    // The person: wait for the window and its first build, open File, Esc, check the viewer
    // still runs, Esc again.
    let person = format!(
        r#"
        "$NAVLAB" view --state-json "{state}" --record "{record}" &
        pid=$!
        for i in $(seq 1 600); do
            window=$(xdotool search --name '^Navlab$' 2>/dev/null | head -n 1)
            [ -n "$window" ] && break
            sleep 0.1
        done
        [ -n "$window" ] || {{ echo "no window"; kill $pid; exit 3; }}
        sleep 6
        # Keys typed into the focused window go through the X server as a keyboard's do
        # (`key --window` would send synthetic events, which toolkits may ignore).
        xdotool windowfocus --sync "$window"
        xdotool mousemove --window "$window" 18 11 click 1
        sleep 2
        xdotool key Escape
        sleep 2
        kill -0 $pid || {{ echo "Esc with the menu open quit the viewer"; exit 4; }}
        xdotool mousemove --window "$window" 640 400
        sleep 1
        xdotool key Escape
        for i in $(seq 1 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
        kill -0 $pid 2>/dev/null && {{ echo "the second Esc did not quit"; kill $pid; exit 5; }}
        wait $pid
        "#,
        state = state.display(),
        record = record.display()
    );
    let _turn = ONE_XVFB.lock().unwrap_or_else(|e| e.into_inner());
    let output = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24", "bash", "-c", &person])
        .env("NAVLAB", env!("CARGO_BIN_EXE_navlab"))
        .output()
        .expect("xvfb-run runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(state["quit"], true, "{state:#}");
    assert_eq!(state["settings"]["cellSize"].as_f64(), Some(0.3f32 as f64));
    let recorded = std::fs::read_to_string(&record).unwrap();
    let escapes = recorded.matches(r#"{"key_down":"Escape"}"#).count();
    assert_eq!(escapes, 2, "{recorded}");
    assert!(recorded.contains(r#"{"press":"left"}"#), "{recorded}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scripted session in a real window under Xvfb: the same script the headless tests play,
/// here through winit's window. A slider dragged while the first build runs changes only
/// itself, and the screenshot shows the draw mode picked through the combo box.
#[test]
fn real_window_plays_a_session() {
    if !vulkan_available() {
        return;
    }
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        assert!(!required(), "xvfb-run is missing");
        return;
    }
    let dir = out_dir("real_window_plays_a_session");
    let session = dir.join("session.jsonl");
    let shot = dir.join("raw-contours.png");
    std::fs::write(
        &session,
        format!(
            "{{\"drag\": \"Max Slope\", \"to\": 30, \"frames\": 10}}\n\
             {{\"wait_build\": true}}\n\
             {{\"draw\": \"Raw Contours\"}}\n\
             {{\"wait_frames\": 3}}\n\
             {{\"screenshot\": \"{}\"}}\n",
            shot.display()
        ),
    )
    .unwrap();
    let state = dir.join("state.json");
    let _turn = ONE_XVFB.lock().unwrap_or_else(|e| e.into_inner());
    let output = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(env!("CARGO_BIN_EXE_navlab"))
        .args(["view", "--session"])
        .arg(&session)
        .arg("--state-json")
        .arg(&state)
        .output()
        .expect("xvfb-run runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(state["quit"], false, "{state:#}");
    assert_eq!(state["drawMode"], "Raw Contours", "{state:#}");
    let slope = state["settings"]["agentMaxSlope"].as_f64().unwrap();
    assert!((slope - 30.0).abs() <= 2.0, "{state:#}");
    assert_eq!(
        state["settings"]["agentMaxClimb"].as_f64(),
        Some(0.9f32 as f64),
        "{state:#}"
    );
    let (width, height, _) = read_png(&shot);
    assert_eq!((width, height), (1280, 800));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bad session file, or a state file that is one of the inputs, stops `navlab view` before
/// any window opens: one `navlab:` line naming the file and the line or the clash.
#[test]
fn bad_session_arguments_are_one_clear_line() {
    let dir = out_dir("bad_session_arguments_are_one_clear_line");
    let session = dir.join("steps.jsonl");
    std::fs::write(&session, "{\"wait_frames\": 1}\n{\"click\": 3}\n").unwrap();
    let mesh = dir.join("level.obj");
    std::fs::write(&mesh, "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n").unwrap();
    let run = |extra: &[&std::ffi::OsStr]| {
        let output = Command::new(env!("CARGO_BIN_EXE_navlab"))
            .arg("view")
            .args(extra)
            .arg("--headless")
            .arg("--session")
            .arg(&session)
            .env_remove("DISPLAY")
            .output()
            .expect("navlab runs");
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("navlab:"), "{stderr}");
        stderr
    };
    let stderr = run(&[]);
    assert!(
        stderr.contains("steps.jsonl") && stderr.contains("line 2") && stderr.contains("string"),
        "{stderr}"
    );
    std::fs::write(&session, "{\"wait_frames\": 1}\n").unwrap();
    let stderr = run(&[mesh.as_os_str(), "--state-json".as_ref(), mesh.as_os_str()]);
    assert!(
        stderr.contains("state-json") && stderr.contains("the mesh"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&mesh).unwrap(),
        "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n",
        "the mesh is untouched"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// File → Connect to a running Bevy game, as a person uses it: the game's level is pulled as
/// the input and built, the navmesh is pushed back and arrives as the library bakes it; a
/// game that is not there is one line in the window, and the viewer goes on.
#[test]
fn a_running_game_is_pulled_from_and_pushed_to() {
    if !vulkan_available() {
        return;
    }
    let dir = out_dir("a_running_game_is_pulled_from_and_pushed_to");
    let game = support::stand_in_game::StandInGame::start();
    let session = dir.join("session.jsonl");
    std::fs::write(
        &session,
        "{\"expect\": \"Pulled 2 sources, 4 triangles\"}\n\
         {\"wait_build\": true}\n\
         {\"expect\": \"Floor\"}\n\
         {\"click\": \"Push navmesh\"}\n\
         {\"expect\": \"generation is 2\"}\n\
         {\"click\": \"Status\"}\n\
         {\"expect\": \"a pushed navmesh holds\"}\n",
    )
    .unwrap();
    let state_path = dir.join("state.json");
    let play = |address: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_navlab"))
            .args(["view", "--headless", "--connect", address, "--session"])
            .arg(&session)
            .arg("--state-json")
            .arg(&state_path)
            .env_remove("DISPLAY")
            .output()
            .expect("navlab runs");
        let state: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
        (output, state)
    };
    let (output, state) = play(&game.address);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        state["mesh"],
        format!("Bevy game at {}", game.address),
        "{state:#}"
    );
    assert_eq!(state["game"]["sources"], 2, "{state:#}");
    assert_eq!(state["game"]["generation"], 2, "{state:#}");
    let level =
        navlab_app::remote::level_from_result(&game.address, &support::stand_in_game::sources())
            .unwrap();
    let baked = navlab::game::NavMeshBuilder::new(navlab::bake::settings::BuildSettings::default())
        .mesh(&level.mesh)
        .build()
        .unwrap();
    let pushed = game
        .pushed
        .lock()
        .unwrap()
        .take()
        .expect("a navmesh arrived");
    assert_eq!(
        pushed,
        baked.to_mset_bytes(),
        "the viewer's build is the library's"
    );

    // Nothing listens on a port bound and let go.
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    std::fs::write(
        &session,
        "{\"expect\": \"no game answers\"}\n{\"wait_frames\": 3}\n",
    )
    .unwrap();
    let (output, state) = play(&free);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(state["quit"], false, "{state:#}");
    assert_eq!(
        state["mesh"], "Default scene",
        "the scene before stays: {state:#}"
    );
    let outcome = state["game"]["outcome"].as_str().unwrap_or_default();
    assert!(outcome.contains("no game answers"), "{state:#}");
    std::fs::remove_dir_all(&dir).unwrap();
}
