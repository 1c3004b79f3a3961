//! **File → Connect to a running Bevy game…**: the game's level as the input, and the navmesh
//! tuned here sent back. The game runs `bevy_navlab` with its `remote` feature and Bevy's
//! remote protocol over HTTP ([`crate::remote`]); **Pull level** lists its `NavMeshSource`
//! entities and opens their triangles as the scene, **Push navmesh** sends the navmesh on
//! screen, which the game swaps in. Calls run on the I/O pool, one at a time, so a slow or
//! missing game never stalls a frame; a failure is one line in the window and the log.

use std::sync::Arc;

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{IoTaskPool, Task};
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::remote::{DEFAULT_ADDRESS, Game, RemoteError, RemoteLevel, RemoteSource, RemoteStatus};
use crate::viewer::build::{BuildRequest, BuildState, SceneData, ViewerLog};
use crate::viewer::navmesh::{SharedNavMesh, ShownNavMesh};
use navlab::input::InputGeom;

/// The connection window and what the game last said.
#[derive(Resource)]
pub struct GameLink {
    /// Whether the window shows.
    pub open: bool,
    /// The game's remote protocol address, `host:port`.
    pub address: String,
    /// The sources of the last level pulled.
    pub sources: Vec<RemoteSource>,
    /// The plugin's state after the last call that reported it.
    pub status: Option<RemoteStatus>,
    /// The outcome of the last call, shown under the buttons.
    pub outcome: Option<Result<String, String>>,
    /// The call on its way, if any.
    call: Option<(GameLinkRequest, Task<Reply>)>,
}

impl Default for GameLink {
    fn default() -> Self {
        Self {
            open: false,
            address: DEFAULT_ADDRESS.to_owned(),
            sources: Vec::new(),
            status: None,
            outcome: None,
            call: None,
        }
    }
}

impl GameLink {
    /// The window open on `address`, pulling its level at once (`navlab view --connect`).
    pub fn pulling_from(address: String) -> Self {
        Self {
            open: true,
            address,
            ..default()
        }
    }

    /// Whether a call is on its way.
    pub fn busy(&self) -> bool {
        self.call.is_some()
    }

    /// The state a session reports.
    pub fn session_state(&self) -> serde_json::Value {
        serde_json::json!({
            "address": self.address,
            "sources": self.sources.len(),
            "generation": self.status.map(|s| s.generation),
            "agents": self.status.map(|s| s.agents),
            "busy": self.busy(),
            "outcome": match &self.outcome {
                Some(Ok(text)) | Some(Err(text)) => Some(text.as_str()),
                None => None,
            },
        })
    }
}

/// What the user asked of the game.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameLinkRequest {
    /// List the sources and open their level as the scene.
    Pull,
    /// Send the navmesh on screen.
    Push,
    /// Ask the plugin's state.
    Status,
}

/// A finished call.
enum Reply {
    /// The level's sources and the scene its triangles make (built off the main thread: it
    /// can be large).
    Pulled(Result<Box<(Vec<RemoteSource>, SceneData)>, String>),
    /// The game's navmesh generation after the swap, and its state.
    Pushed(Result<(u64, usize, RemoteStatus), RemoteError>),
    Status(Result<RemoteStatus, RemoteError>),
}

pub struct GameLinkPlugin {
    /// Open the window on this address and pull its level at start-up.
    pub connect: Option<String>,
}

impl Plugin for GameLinkPlugin {
    fn build(&self, app: &mut App) {
        let link = match &self.connect {
            Some(address) => GameLink::pulling_from(address.clone()),
            None => GameLink::default(),
        };
        app.insert_resource(link)
            .add_message::<GameLinkRequest>()
            .add_systems(Update, (start_calls, finish_calls).chain())
            .add_systems(EguiPrimaryContextPass, game_window);
        if self.connect.is_some() {
            app.world_mut()
                .write_message(GameLinkRequest::Pull)
                .expect("the message was added just above");
        }
    }
}

fn start_calls(
    mut requests: MessageReader<GameLinkRequest>,
    mut link: ResMut<GameLink>,
    shown: Res<ShownNavMesh>,
    state: Res<BuildState>,
    mut log: ResMut<ViewerLog>,
) {
    for &request in requests.read() {
        if link.busy() {
            log.error("The game has not answered the last call yet; try again once it has");
            continue;
        }
        let game = Game::at(link.address.trim());
        let pool = IoTaskPool::get();
        let call = match request {
            GameLinkRequest::Pull => (
                request,
                pool.spawn(async move { Reply::Pulled(pull(&game)) }),
            ),
            GameLinkRequest::Push => {
                let Some(nav) = shown.shared(&state) else {
                    let text = "Nothing to push: no navmesh yet (build first)".to_owned();
                    log.error(text.clone());
                    link.outcome = Some(Err(text));
                    continue;
                };
                (
                    request,
                    pool.spawn(async move { Reply::Pushed(push(&game, &nav)) }),
                )
            }
            GameLinkRequest::Status => (
                request,
                pool.spawn(async move { Reply::Status(game.status()) }),
            ),
        };
        link.call = Some(call);
    }
}

/// Pulls the level and makes it a scene named after the game.
fn pull(game: &Game) -> Result<Box<(Vec<RemoteSource>, SceneData)>, String> {
    let RemoteLevel { mesh, sources } = game.pull_level().map_err(|e| e.to_string())?;
    if mesh.tri_count() == 0 {
        return Err(format!(
            "the game at {} has no NavMeshSource with triangles",
            game.address()
        ));
    }
    let input = InputGeom::from_mesh(mesh).map_err(|e| format!("the game's level: {e}"))?;
    let name = format!("Bevy game at {}", game.address());
    Ok(Box::new((sources, SceneData { input, name })))
}

fn push(game: &Game, nav: &SharedNavMesh) -> Result<(u64, usize, RemoteStatus), RemoteError> {
    let generation = game.push_nav_mesh(nav)?;
    Ok((generation, nav.tile_count(), game.status()?))
}

fn finish_calls(
    mut link: ResMut<GameLink>,
    mut builds: MessageWriter<BuildRequest>,
    mut log: ResMut<ViewerLog>,
) {
    let link = &mut *link;
    let Some((_, task)) = &mut link.call else {
        return;
    };
    let Some(reply) = check_ready(task) else {
        return;
    };
    link.call = None;
    let outcome = match reply {
        Reply::Pulled(Ok(pulled)) => {
            let (sources, scene) = *pulled;
            let text = format!(
                "Pulled {} sources, {} triangles from {}",
                sources.len(),
                scene.input.mesh.tri_count(),
                link.address
            );
            link.sources = sources;
            builds.write(BuildRequest::Scene(Arc::new(scene)));
            Ok(text)
        }
        Reply::Pulled(Err(error)) => Err(error),
        Reply::Pushed(Ok((generation, tiles, status))) => {
            link.status = Some(status);
            Ok(format!(
                "Pushed the navmesh ({tiles} tiles) to {}: the game's navmesh generation is {generation}",
                link.address
            ))
        }
        Reply::Status(Ok(status)) => {
            link.status = Some(status);
            Ok(format!("{} answers", link.address))
        }
        Reply::Pushed(Err(error)) | Reply::Status(Err(error)) => Err(error.to_string()),
    };
    match &outcome {
        Ok(text) => log.info(text.clone()),
        Err(text) => log.error(format!("Bevy game: {text}")),
    }
    link.outcome = Some(outcome);
}

fn game_window(
    mut contexts: EguiContexts,
    mut link: ResMut<GameLink>,
    mut requests: MessageWriter<GameLinkRequest>,
) -> Result {
    if !link.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let mut open = true;
    let link = &mut *link;
    egui::Window::new("Bevy game")
        .open(&mut open)
        .default_width(340.0)
        .default_pos(egui::pos2(360.0, 80.0))
        .show(&ctx, |ui| {
            ui.label("A game running bevy_navlab (feature remote) with Bevy's RemotePlugin and RemoteHttpPlugin.");
            ui.horizontal(|ui| {
                ui.label("Address");
                ui.text_edit_singleline(&mut link.address);
            });
            ui.add_enabled_ui(!link.busy(), |ui| {
                ui.horizontal(|ui| {
                    if ui.button("Pull level").clicked() {
                        requests.write(GameLinkRequest::Pull);
                    }
                    if ui.button("Push navmesh").clicked() {
                        requests.write(GameLinkRequest::Push);
                    }
                    if ui.button("Status").clicked() {
                        requests.write(GameLinkRequest::Status);
                    }
                });
            });
            match (&link.call, &link.outcome) {
                (Some((call, _)), _) => {
                    ui.label(match call {
                        GameLinkRequest::Pull => "Pulling the level…",
                        GameLinkRequest::Push => "Pushing the navmesh…",
                        GameLinkRequest::Status => "Asking…",
                    });
                }
                (None, Some(Ok(text))) => {
                    ui.label(text);
                }
                (None, Some(Err(text))) => {
                    ui.colored_label(egui::Color32::from_rgb(255, 110, 110), text);
                }
                (None, None) => {}
            }
            if let Some(status) = link.status {
                ui.label(format!("Game {status}"));
            }
            if !link.sources.is_empty() {
                ui.separator();
                ui.label(format!("{} NavMeshSource entities", link.sources.len()));
                egui::ScrollArea::vertical()
                    .max_height(200.0)
                    .show(ui, |ui| {
                        egui::Grid::new("game-sources").striped(true).show(ui, |ui| {
                            for source in &link.sources {
                                ui.label(source.name.as_deref().unwrap_or("(no name)"));
                                ui.label(format!("entity {:#x}", source.entity));
                                ui.label(format!("{} triangles", source.triangles));
                                ui.end_row();
                            }
                        });
                    });
            }
        });
    link.open = open;
    Ok(())
}
