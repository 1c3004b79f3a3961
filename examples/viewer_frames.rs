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

use std::path::PathBuf;
use std::time::Instant;

use navlab::NavlabError;
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
