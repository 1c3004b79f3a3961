//! `navlab view --self-test`: drives a real window through what a user does first (the first
//! build, one setting change and the rebuild it triggers), saves a screenshot of the window and
//! exits. CI runs it under Xvfb.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::render::view::screenshot::Screenshot;

use crate::viewer::build::{BuildRequest, BuildState};
use crate::viewer::screenshot::save_and_exit;
use navlab::bake::solo::Stage;

/// Give up if the builds have not finished by then.
const TIMEOUT: Duration = Duration::from_secs(300);

pub struct SelfTestPlugin {
    /// Where to save the window's screenshot at the end.
    pub screenshot: PathBuf,
    /// Receives an error message if the test failed.
    pub error: Arc<Mutex<Option<String>>>,
}

#[derive(Resource)]
struct SelfTest {
    step: Step,
    screenshot: PathBuf,
    started: Instant,
    error: Arc<Mutex<Option<String>>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    FirstBuild,
    Rebuild {
        finished_before: u64,
    },
    /// Frames to show the rebuilt navmesh before capturing.
    Show(u32),
    Capturing,
}

impl Plugin for SelfTestPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(SelfTest {
            step: Step::FirstBuild,
            screenshot: self.screenshot.clone(),
            started: Instant::now(),
            error: self.error.clone(),
        })
        .add_systems(Last, drive);
    }
}

fn drive(
    mut commands: Commands,
    mut test: ResMut<SelfTest>,
    state: Res<BuildState>,
    mut requests: MessageWriter<BuildRequest>,
    mut exit: MessageWriter<AppExit>,
) {
    if test.started.elapsed() > TIMEOUT {
        fail(
            &test,
            &mut exit,
            format!("the builds did not finish within {TIMEOUT:?}"),
        );
        return;
    }
    match test.step {
        Step::FirstBuild => {
            if state.finished == 0 || state.is_busy() {
                return;
            }
            if state.build.is_none() {
                fail(&test, &mut exit, "the first build failed".into());
                return;
            }
            let settings = navlab::bake::settings::BuildSettings {
                cell_size: state.settings.cell_size + 0.1,
                ..state.settings.clone()
            };
            println!(
                "self-test: first build done, changing cellSize to {}",
                settings.cell_size
            );
            requests.write(BuildRequest::Settings(settings));
            test.step = Step::Rebuild {
                finished_before: state.finished,
            };
        }
        Step::Rebuild { finished_before } => {
            if state.finished == finished_before || state.is_busy() {
                return;
            }
            match state.last_build {
                Some((Stage::Rasterize, time)) if state.build.is_some() => {
                    println!(
                        "self-test: rebuilt from {} in {:.1} ms",
                        Stage::Rasterize.name(),
                        time.as_secs_f64() * 1000.0
                    );
                    test.step = Step::Show(10);
                }
                other => fail(
                    &test,
                    &mut exit,
                    format!("expected a rebuild from Rasterize, got {other:?}"),
                ),
            }
        }
        Step::Show(0) => {
            test.step = Step::Capturing;
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_and_exit(test.screenshot.clone(), test.error.clone()));
        }
        Step::Show(frames) => test.step = Step::Show(frames - 1),
        Step::Capturing => {}
    }
}

fn fail(test: &SelfTest, exit: &mut MessageWriter<AppExit>, message: String) {
    *test.error.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
    exit.write(AppExit::error());
}
