//! How fast the viewer shows a draw mode on a big map: one screenshot run (no window) that
//! prints, as one JSON line, the time to the first build, the first frame after it (the mode's
//! layer made, uploaded and drawn), the steady frame time, and the process's peak memory.
//! Software rendering needs an X server for the Vulkan loader: run under Xvfb, one mode per
//! process so each peak is its own:
//!
//! ```text
//! xvfb-run -a cargo run --release --example viewer_frames -- city.obj voxels
//! ```
//!
//! A third and fourth argument pick the sample and its tile size, for the tiled views:
//! `-- city.obj navmesh tile-mesh 64` (`solo-mesh`, `tile-mesh` or `temp-obstacles`).
//!
//! `-- world.nlts fly [SECONDS] [WIDTHxHEIGHT]` instead opens a navmesh file or tile store (a
//! world) headless, waits for the view to settle, flies forward (W held) for SECONDS (10 by
//! default) and prints the frame times of that flight (mean, 95th percentile, longest, how many
//! over 100 ms), of the opening before it, the blocks drawn and the tiles loaded.

use std::path::PathBuf;
use std::time::Instant;

use bevy::math::UVec2;
use navlab::NavlabError;
use navlab_app::session_script::{Action, ScriptLine};
use navlab_app::viewer::build::Sample;
use navlab_app::viewer::{DrawMode, ViewerOptions};

/// The process's peak resident memory in bytes (Linux; `None` elsewhere).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn main() -> navlab::Result<()> {
    let mut args = std::env::args().skip(1);
    let mesh = args.next().map(PathBuf::from);
    let mode = args.next().unwrap_or_else(|| "voxels".into());
    if mode == "fly" {
        let nav_mesh = mesh.ok_or_else(|| NavlabError::InvalidSetting {
            name: "navmesh",
            value: String::new(),
            reason: "fly needs a navmesh file or tile store".into(),
        })?;
        return fly(nav_mesh, args.next(), args.next());
    }
    let draw_mode: DrawMode = mode.parse().map_err(|reason| NavlabError::InvalidSetting {
        name: "draw",
        value: mode.clone(),
        reason,
    })?;
    let sample = args
        .next()
        .map(|name| {
            navlab_app::viewer::draw::parse_label(&name, &Sample::ALL, Sample::label, "sample")
                .map_err(|reason| NavlabError::InvalidSetting {
                    name: "sample",
                    value: name.clone(),
                    reason,
                })
        })
        .transpose()?;
    let tile_size = args
        .next()
        .map(|size| {
            size.parse::<i32>()
                .map_err(|e| NavlabError::InvalidSetting {
                    name: "tile size",
                    value: size.clone(),
                    reason: e.to_string(),
                })
        })
        .transpose()?;
    let screenshot = std::env::temp_dir().join(format!("navlab-viewer-frames-{mode}.png"));
    let options = ViewerOptions {
        mesh: mesh.clone(),
        draw_mode,
        sample,
        tile_size,
        screenshot: Some(screenshot),
        frames: 8,
        ..ViewerOptions::default()
    };
    let timings = options.frame_timings.clone();
    let started = Instant::now();
    navlab_app::viewer::run(options)?;
    let total = started.elapsed();
    let timings = timings
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default();
    let seconds = |d: std::time::Duration| (d.as_secs_f64() * 1000.0).round() / 1000.0;
    println!(
        "{{\"mesh\": {:?}, \"mode\": {:?}, \"sample\": {:?}, \"buildReadyS\": {}, \"firstFrameS\": {}, \
         \"toFirstFrameS\": {}, \"steadyFrameS\": {}, \"totalS\": {}, \"peakRssMiB\": {}}}",
        mesh.map_or_else(|| "default scene".into(), |m| m.display().to_string()),
        mode,
        sample.unwrap_or_default().label(),
        seconds(timings.build_ready),
        seconds(timings.first_frame),
        seconds(timings.build_ready + timings.first_frame),
        seconds(timings.steady_frame()),
        seconds(total),
        peak_rss().map_or(0, |b| b >> 20),
    );
    Ok(())
}

/// Opens `nav_mesh` headless, flies over it and prints the flight's frame times.
fn fly(nav_mesh: PathBuf, seconds: Option<String>, size: Option<String>) -> navlab::Result<()> {
    let invalid = |name: &'static str, value: &str, reason: String| NavlabError::InvalidSetting {
        name,
        value: value.to_owned(),
        reason,
    };
    let seconds: f32 = match &seconds {
        Some(text) => text
            .parse()
            .map_err(|e: std::num::ParseFloatError| invalid("seconds", text, e.to_string()))?,
        None => 10.0,
    };
    let size = match &size {
        Some(text) => {
            let (w, h) = text
                .split_once('x')
                .ok_or_else(|| invalid("size", text, "expected WIDTHxHEIGHT".into()))?;
            let parse = |v: &str| {
                v.parse::<u32>()
                    .map_err(|e| invalid("size", text, e.to_string()))
            };
            UVec2::new(parse(w)?, parse(h)?)
        }
        None => ViewerOptions::default().size,
    };
    let dir = std::env::temp_dir();
    let settled = dir.join(format!(
        "navlab-viewer-fly-{}-settled.json",
        std::process::id()
    ));
    let flown = dir.join(format!("navlab-viewer-fly-{}.json", std::process::id()));
    let session = [
        Action::WaitBuild,
        Action::State(settled.clone()),
        Action::KeyDown { key: "W".into() },
        Action::WaitSeconds(seconds),
        Action::KeyUp { key: "W".into() },
        Action::State(flown.clone()),
    ];
    let options = ViewerOptions {
        nav_mesh: Some(nav_mesh.clone()),
        draw_mode: DrawMode::Navmesh,
        headless: true,
        size,
        session: session
            .into_iter()
            .enumerate()
            .map(|(i, action)| ScriptLine {
                line: i + 1,
                action,
            })
            .collect(),
        ..ViewerOptions::default()
    };
    let started = Instant::now();
    navlab_app::viewer::run(options)?;
    let read = |path: &PathBuf| -> navlab::Result<serde_json::Value> {
        let text =
            std::fs::read_to_string(path).map_err(|e| invalid("state", "", e.to_string()))?;
        let _ = std::fs::remove_file(path);
        serde_json::from_str(&text).map_err(|e| invalid("state", "", e.to_string()))
    };
    let (before, after) = (read(&settled)?, read(&flown)?);
    let focus = |state: &serde_json::Value| {
        let f = &state["camera"]["focus"];
        [0, 1, 2].map(|k| f[k].as_f64().unwrap_or(0.0))
    };
    let (a, b) = (focus(&before), focus(&after));
    let flown_m = (0..3)
        .map(|k| (b[k] - a[k]).powi(2))
        .sum::<f64>()
        .sqrt()
        .round();
    let summary = serde_json::json!({
        "navmesh": nav_mesh.display().to_string(),
        "size": [size.x, size.y],
        "seconds": seconds,
        // Opening the file and the first view, to the first state.
        "settle": before["frames"],
        "flight": after["frames"],
        "flownM": flown_m,
        "world": after["world"],
        "settledWorld": before["world"],
        "totalS": (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        "peakRssMiB": peak_rss().map_or(0, |b| b >> 20),
    });
    println!("{summary}");
    Ok(())
}
