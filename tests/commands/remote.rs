//! `navlab remote` against a stand-in game: a small HTTP server on localhost that answers the
//! Bevy Remote Protocol's JSON-RPC as `bevy_navlab`'s remote methods do. The level pulled is
//! written as OBJ, baked, pushed back, and arrives as the same navmesh; a missing game and a
//! server that is not one give one clear line.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::{Value, json};

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

/// The stand-in's level: a 20 m floor and a 4 m crate, two sources.
fn sources() -> Value {
    json!({ "sources": [
        { "entity": 4294967296u64, "name": "Floor",
          "vertices": [0.0, 0.0, 0.0, 0.0, 0.0, 20.0, 20.0, 0.0, 20.0, 20.0, 0.0, 0.0],
          "indices": [0, 1, 2, 0, 2, 3] },
        { "entity": 4294967297u64, "name": null,
          "vertices": [8.0, 2.0, 8.0, 8.0, 2.0, 12.0, 12.0, 2.0, 12.0, 12.0, 2.0, 8.0],
          "indices": [0, 1, 2, 0, 2, 3] },
    ]})
}

/// Serves requests until the test ends, answering each as `answer` says; the first answer
/// is chunked, the others carry a length, as servers do either.
fn serve(answer: impl Fn(&Value) -> Value + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let request: Value = serde_json::from_slice(&body).unwrap();
            let reply = serde_json::to_vec(&answer(&request)).unwrap();
            let head = if n == 0 {
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_owned()
            } else {
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    reply.len()
                )
            };
            stream.write_all(head.as_bytes()).unwrap();
            if n == 0 {
                let (a, b) = reply.split_at(reply.len() / 2);
                for chunk in [a, b] {
                    write!(stream, "{:x}\r\n", chunk.len()).unwrap();
                    stream.write_all(chunk).unwrap();
                    stream.write_all(b"\r\n").unwrap();
                }
                stream.write_all(b"0\r\n\r\n").unwrap();
            } else {
                stream.write_all(&reply).unwrap();
            }
        }
    });
    address
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
    let pushed: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    let received = pushed.clone();
    let address = serve(move |request| {
        let result = match request["method"].as_str().unwrap() {
            "navlab.sources" => sources(),
            "navlab.use_navmesh" => {
                let text = request["params"]["navmesh"].as_str().unwrap();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .unwrap();
                *received.lock().unwrap() = Some(bytes);
                json!({ "generation": 2, "tiles": 1 })
            }
            "navlab.status" => {
                json!({ "has_navmesh": true, "generation": 2, "revision": 3, "agents": 12, "pinned": true })
            }
            other => {
                return json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32601, "message": format!("Method `{other}` not found") } });
            }
        };
        json!({ "jsonrpc": "2.0", "id": 1, "result": result })
    });
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
    let arrived = pushed.lock().unwrap().take().expect("the navmesh arrived");
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
