//! A stand-in for a running Bevy game: a small HTTP server on localhost that answers the Bevy
//! Remote Protocol's JSON-RPC as `bevy_navlab`'s remote methods do (the real game's round trip
//! is `bevy_navlab`'s `bevy_agents` example test).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::{Value, json};

/// The stand-in's level: a 20 m floor and a 4 m crate, two sources.
pub fn sources() -> Value {
    json!({ "sources": [
        { "entity": 4294967296u64, "name": "Floor",
          "vertices": [0.0, 0.0, 0.0, 0.0, 0.0, 20.0, 20.0, 0.0, 20.0, 20.0, 0.0, 0.0],
          "indices": [0, 1, 2, 0, 2, 3] },
        { "entity": 4294967297u64, "name": null,
          "vertices": [8.0, 2.0, 8.0, 8.0, 2.0, 12.0, 12.0, 2.0, 12.0, 12.0, 2.0, 8.0],
          "indices": [0, 1, 2, 0, 2, 3] },
    ]})
}

/// A game that serves [`sources`], keeps the last navmesh pushed (the decoded file's bytes)
/// and counts one generation up per push, from 1.
pub struct StandInGame {
    pub address: String,
    pub pushed: Arc<Mutex<Option<Vec<u8>>>>,
}

impl StandInGame {
    pub fn start() -> StandInGame {
        let pushed: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
        let received = pushed.clone();
        // The navmesh generation, one up per push from 1 (1 means nothing was pushed).
        let generation = Arc::new(Mutex::new(1u64));
        let address = serve(move |request| {
            let mut generation = generation.lock().unwrap();
            let result = match request["method"].as_str().unwrap() {
                "navlab.sources" => sources(),
                "navlab.use_navmesh" => {
                    let text = request["params"]["navmesh"].as_str().unwrap();
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(text)
                        .unwrap();
                    *received.lock().unwrap() = Some(bytes);
                    *generation += 1;
                    json!({ "generation": *generation, "tiles": 1 })
                }
                "navlab.status" => {
                    let pinned = *generation > 1;
                    json!({ "has_navmesh": true, "generation": *generation, "revision": 3, "agents": 12, "pinned": pinned })
                }
                other => {
                    return json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32601, "message": format!("Method `{other}` not found") } });
                }
            };
            json!({ "jsonrpc": "2.0", "id": 1, "result": result })
        });
        StandInGame { address, pushed }
    }
}

/// Serves requests until the test ends, answering each as `answer` says; the first answer
/// is chunked, the others carry a length, as servers do either.
pub fn serve(answer: impl Fn(&Value) -> Value + Send + 'static) -> String {
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
