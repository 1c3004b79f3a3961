//! `navlab remote` against a stand-in game (`support::stand_in_game`). The level pulled is
//! written as OBJ, baked, pushed back, and arrives as the same navmesh; a missing game and a
//! server that is not one give one clear line.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;

use crate::support::stand_in_game::{StandInGame, serve};

fn navlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_navlab"))
        .args(args)
        .output()
        .unwrap()
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navlab_remote_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn one_error_line(output: &Output) -> String {
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("navlab: "), "{stderr}");
    stderr
}

#[test]
fn a_level_is_pulled_baked_and_pushed_back() {
    let dir = out_dir("round_trip");
    let game = StandInGame::start();
    let address = game.address.clone();
    let level = dir.join("level.obj");
    let pull = navlab(&[
        "remote",
        "pull",
        "--address",
        &address,
        "-o",
        level.to_str().unwrap(),
    ]);
    assert!(
        pull.status.success(),
        "{}",
        String::from_utf8_lossy(&pull.stderr)
    );
    assert!(
        stdout(&pull).contains("2 sources, 4 triangles"),
        "{}",
        stdout(&pull)
    );
    let mesh = navlab::input::obj::load_obj(&level).unwrap();
    assert_eq!(mesh.tri_count(), 4);
    assert_eq!(mesh.vert_count(), 8);

    let baked = dir.join("level.bin");
    let bake = navlab(&[
        "bake",
        level.to_str().unwrap(),
        "-o",
        baked.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        bake.status.success(),
        "{}",
        String::from_utf8_lossy(&bake.stderr)
    );
    let push = navlab(&[
        "remote",
        "push",
        "--address",
        &address,
        baked.to_str().unwrap(),
    ]);
    assert!(
        push.status.success(),
        "{}",
        String::from_utf8_lossy(&push.stderr)
    );
    assert!(
        stdout(&push).contains("generation is 2"),
        "{}",
        stdout(&push)
    );
    let arrived = game
        .pushed
        .lock()
        .unwrap()
        .take()
        .expect("the navmesh arrived");
    assert_eq!(
        arrived,
        navlab::detour::load_nav_mesh(&baked)
            .unwrap()
            .to_mset_bytes()
    );

    let status = navlab(&["remote", "status", "--address", &address]);
    assert!(stdout(&status).contains("generation 2, 12 agents, a pushed navmesh holds"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_game_or_a_wrong_server_gives_one_clear_line() {
    let dir = out_dir("errors");
    let level = dir.join("level.obj");
    let level = level.to_str().unwrap();
    // A port nothing listens on: bound, then let go.
    let free = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let missing = one_error_line(&navlab(&[
        "remote",
        "pull",
        "--address",
        &free,
        "-o",
        level,
    ]));
    assert!(missing.contains("no game answers"), "{missing}");

    let refusing = serve(
        |_| json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32601, "message": "Method `navlab.sources` not found" } }),
    );
    let refused = one_error_line(&navlab(&[
        "remote",
        "pull",
        "--address",
        &refusing,
        "-o",
        level,
    ]));
    assert!(refused.contains("remote` feature"), "{refused}");

    let lying = serve(
        |_| json!({ "jsonrpc": "2.0", "id": 1, "result": { "sources": [ { "vertices": [0.0, 0.0, 0.0], "indices": [0, 1, 2] } ] } }),
    );
    let bad = one_error_line(&navlab(&[
        "remote",
        "pull",
        "--address",
        &lying,
        "-o",
        level,
    ]));
    assert!(bad.contains("not a vertex of its source"), "{bad}");
    assert!(
        !Path::new(level).exists(),
        "nothing is written after an error"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
