//! Screenshot mode: render the camera into an image (no window, no X server), wait for the first
//! build and a few frames, save the image as PNG and exit. It logs how long the build, the first
//! frame after it (where the draw mode's layer is made and uploaded) and the frames after took:
//! the figures `examples/viewer_frames.rs` reports.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::render_resource::{TextureFormat, TextureUsages};
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};

use crate::viewer::build::BuildState;

/// Give up if the first build has not finished by then.
const TIMEOUT: Duration = Duration::from_secs(300);

pub struct ScreenshotPlugin {
    pub path: PathBuf,
    pub size: UVec2,
    /// Frames to render after the build is ready, before capturing.
    pub frames: u32,
    /// Receives an error message if the screenshot could not be taken.
    pub error: Arc<Mutex<Option<String>>>,
    /// Receives the run's frame timings.
    pub timings: Arc<Mutex<Option<FrameTimings>>>,
}

/// Where the time of a screenshot run went, from the app's start.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameTimings {
    /// Until the first build was done.
    pub build_ready: Duration,
    /// The frame after it: the draw mode's layer made, uploaded and drawn.
    pub first_frame: Duration,
    /// Each later frame until the capture.
    pub later_frames: Vec<Duration>,
}

impl FrameTimings {
    /// The median of the later frames (zero without any).
    pub fn steady_frame(&self) -> Duration {
        let mut frames = self.later_frames.clone();
        frames.sort_unstable();
        frames.get(frames.len() / 2).copied().unwrap_or_default()
    }
}

/// The image the cameras render into when there is no OS window (screenshots, headless
/// sessions).
#[derive(Resource, Clone)]
pub struct OffscreenTarget(pub Handle<Image>);

/// Renders every camera into an [`OffscreenTarget`] of `size` pixels instead of a window.
pub struct OffscreenPlugin {
    pub size: UVec2,
}

impl Plugin for OffscreenPlugin {
    fn build(&self, app: &mut App) {
        let mut image = Image::new_target_texture(
            self.size.x,
            self.size.y,
            TextureFormat::Rgba8UnormSrgb,
            None,
        );
        image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
        let handle = app.world_mut().resource_mut::<Assets<Image>>().add(image);
        app.insert_resource(OffscreenTarget(handle))
            .add_systems(PostStartup, render_to_image);
    }
}

fn render_to_image(
    mut commands: Commands,
    target: Res<OffscreenTarget>,
    cameras: Query<Entity, With<Camera>>,
) {
    for camera in &cameras {
        commands
            .entity(camera)
            .insert(RenderTarget::Image(target.0.clone().into()));
    }
}

#[derive(Resource)]
struct ScreenshotJob {
    path: PathBuf,
    frames_left: u32,
    requested: bool,
    started: Instant,
    error: Arc<Mutex<Option<String>>>,
    /// When the last frame ended, once the build was ready.
    last_frame: Option<Instant>,
    timings: FrameTimings,
    report: Arc<Mutex<Option<FrameTimings>>>,
}

impl Plugin for ScreenshotPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(OffscreenPlugin { size: self.size })
            .insert_resource(ScreenshotJob {
                path: self.path.clone(),
                frames_left: self.frames,
                requested: false,
                started: Instant::now(),
                error: self.error.clone(),
                last_frame: None,
                timings: FrameTimings::default(),
                report: self.timings.clone(),
            })
            .add_systems(Last, capture_when_ready);
    }
}

fn capture_when_ready(
    mut commands: Commands,
    mut job: ResMut<ScreenshotJob>,
    target: Res<OffscreenTarget>,
    state: Res<BuildState>,
    mut exit: MessageWriter<AppExit>,
) {
    if job.requested {
        return;
    }
    if state.finished == 0 || state.is_busy() {
        if job.started.elapsed() > TIMEOUT {
            *job.error.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(format!("the build did not finish within {TIMEOUT:?}"));
            exit.write(AppExit::error());
        }
        return;
    }
    let now = Instant::now();
    match job.last_frame {
        None => job.timings.build_ready = now - job.started,
        Some(last) if job.timings.first_frame.is_zero() => job.timings.first_frame = now - last,
        Some(last) => job.timings.later_frames.push(now - last),
    }
    job.last_frame = Some(now);
    if job.frames_left > 0 {
        job.frames_left -= 1;
        return;
    }
    let timings = job.timings.clone();
    info!(
        "navlab: build ready after {:.2} s, first frame {:.2} s, then {:.0} ms per frame",
        timings.build_ready.as_secs_f64(),
        timings.first_frame.as_secs_f64(),
        timings.steady_frame().as_secs_f64() * 1000.0
    );
    *job.report.lock().unwrap_or_else(|e| e.into_inner()) = Some(timings);
    job.requested = true;
    commands
        .spawn(Screenshot::image(target.0.clone()))
        .observe(save_and_exit(job.path.clone(), job.error.clone()));
}

/// An observer that saves the captured image as PNG at `path` and exits, with an error code and
/// a message in `error` if saving failed.
pub fn save_and_exit(
    path: PathBuf,
    error: Arc<Mutex<Option<String>>>,
) -> impl FnMut(On<ScreenshotCaptured>, MessageWriter<AppExit>) {
    move |captured, mut exit| {
        let saved = captured
            .image
            .clone()
            .try_into_dynamic()
            .map_err(|e| e.to_string())
            .and_then(|image| {
                let rgb = image.to_rgb8();
                navlab::file::write_atomically_with(&path, |part| {
                    // The format follows the name asked for, not the temporary file's.
                    let format = bevy::image::ImageFormat::from_extension(
                        path.extension().and_then(|e| e.to_str()).unwrap_or("png"),
                    )
                    .and_then(|f| f.as_image_crate_format())
                    .ok_or_else(|| std::io::Error::other("not an image file name"))?;
                    rgb.save_with_format(part, format)
                        .map_err(std::io::Error::other)
                })
                .map_err(|e| e.to_string())
            });
        match saved {
            Ok(()) => {
                bevy::log::info!("saved {}", path.display());
                exit.write(AppExit::Success);
            }
            Err(err) => {
                *error.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(format!("{}: {err}", path.display()));
                exit.write(AppExit::error());
            }
        }
    }
}
