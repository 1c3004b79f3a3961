//! A running Bevy game, reached over the Bevy Remote Protocol (JSON-RPC over HTTP on
//! localhost) and the methods `bevy_navlab` adds with its `remote` feature: pull the level
//! that its `NavMeshSource` entities make, push a navmesh back, read the plugin's state.
//!
//! Plain `std` networking: one short HTTP/1.1 request per call, with timeouts, and every size
//! in the answer checked against a budget before anything is kept.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use base64::Engine;
use navlab::detour::NavMesh;
use navlab::input::TriMesh;
use serde_json::{Value, json};

/// Where `bevy_remote` listens unless the game says otherwise.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:15702";
/// The largest answer read: far above a level's triangles, low enough that a wrong server
/// cannot exhaust memory.
const MAX_ANSWER_BYTES: u64 = 1 << 30;
/// How long a call may wait to connect, and for each read or write.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Why a call to the game failed, in one line.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// No game answered at the address.
    #[error(
        "no game answers at {address}: {source} (does it add Bevy's RemotePlugin and RemoteHttpPlugin?)"
    )]
    Connect {
        /// The address tried.
        address: String,
        /// Why the connection failed.
        source: std::io::Error,
    },
    /// The connection broke or timed out.
    #[error("talking to {address}: {source}")]
    Io {
        /// The game's address.
        address: String,
        /// What broke.
        source: std::io::Error,
    },
    /// The answer is not the remote protocol's.
    #[error("{address} answered something that is not the Bevy Remote Protocol: {problem}")]
    BadAnswer {
        /// The game's address.
        address: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The game answered with an error, such as a method it does not have.
    #[error(
        "the game refused {method}: {message} (is bevy_navlab built with its `remote` feature?)"
    )]
    Refused {
        /// The method called.
        method: String,
        /// The game's message.
        message: String,
    },
    /// The level the game sent is unusable.
    #[error("the game's level: {0}")]
    Level(String),
}

/// One `NavMeshSource` of the game.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteSource {
    /// Its entity, as the game numbers it (`Entity::to_bits`).
    pub entity: u64,
    /// Its `Name`, if it has one.
    pub name: Option<String>,
    /// Its triangles in the level.
    pub triangles: usize,
}

/// The level a game's sources make.
#[derive(Clone, Debug)]
pub struct RemoteLevel {
    /// Every source's triangles, in world space, in the order the game listed them.
    pub mesh: TriMesh,
    /// The sources.
    pub sources: Vec<RemoteSource>,
}

/// What `navlab.status` tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteStatus {
    /// Whether the game has a navmesh.
    pub has_navmesh: bool,
    /// How many navmeshes were swapped in.
    pub generation: u64,
    /// Agents in its crowd.
    pub agents: u64,
    /// Whether a pushed navmesh holds (the game does not bake its sources meanwhile).
    pub pinned: bool,
}

impl std::fmt::Display for RemoteStatus {
    /// One line: `navmesh: yes, generation 2, 12 agents, a pushed navmesh holds`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "navmesh: {}, generation {}, {} agents{}",
            if self.has_navmesh { "yes" } else { "no" },
            self.generation,
            self.agents,
            if self.pinned {
                ", a pushed navmesh holds"
            } else {
                ""
            }
        )
    }
}

/// A game at an address (`host:port`).
#[derive(Clone, Debug)]
pub struct Game {
    address: String,
}

impl Game {
    /// The game listening at `address`; nothing is sent yet.
    pub fn at(address: impl Into<String>) -> Game {
        Game {
            address: address.into(),
        }
    }

    /// The address.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The level: every source's triangles as one mesh.
    pub fn pull_level(&self) -> Result<RemoteLevel, RemoteError> {
        let result = self.call("navlab.sources", Value::Null)?;
        level_from_result(&self.address, &result)
    }

    /// Sends a navmesh (as RecastDemo's MSET file) for the game to use; returns the game's
    /// navmesh generation after the swap.
    pub fn push_nav_mesh(&self, nav: &NavMesh) -> Result<u64, RemoteError> {
        let text = base64::engine::general_purpose::STANDARD.encode(nav.to_mset_bytes());
        let result = self.call("navlab.use_navmesh", json!({ "navmesh": text }))?;
        result
            .get("generation")
            .and_then(Value::as_u64)
            .ok_or_else(|| self.bad("navlab.use_navmesh gave no generation"))
    }

    /// The plugin's state.
    pub fn status(&self) -> Result<RemoteStatus, RemoteError> {
        let result = self.call("navlab.status", Value::Null)?;
        let flag = |key: &str| result.get(key).and_then(Value::as_bool).unwrap_or(false);
        let number = |key: &str| result.get(key).and_then(Value::as_u64).unwrap_or(0);
        Ok(RemoteStatus {
            has_navmesh: flag("has_navmesh"),
            generation: number("generation"),
            agents: number("agents"),
            pinned: flag("pinned"),
        })
    }

    fn bad(&self, problem: &str) -> RemoteError {
        bad(&self.address, problem)
    }

    /// One JSON-RPC call; the `result` of the answer.
    fn call(&self, method: &str, params: Value) -> Result<Value, RemoteError> {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let body = serde_json::to_vec(&request).map_err(|e| self.bad(&e.to_string()))?;
        let answer = self.post(&body)?;
        answer_result(&self.address, method, &answer)
    }

    /// POSTs `body` and returns the answer's body.
    fn post(&self, body: &[u8]) -> Result<Vec<u8>, RemoteError> {
        let io = |source| RemoteError::Io {
            address: self.address.clone(),
            source,
        };
        let target = self
            .address
            .to_socket_addrs()
            .map_err(|source| RemoteError::Connect {
                address: self.address.clone(),
                source,
            })?
            .next()
            .ok_or_else(|| RemoteError::Connect {
                address: self.address.clone(),
                source: std::io::Error::other("the address names no host"),
            })?;
        let mut stream = TcpStream::connect_timeout(&target, TIMEOUT).map_err(|source| {
            RemoteError::Connect {
                address: self.address.clone(),
                source,
            }
        })?;
        stream.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
        stream.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
        let head = format!(
            "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.address,
            body.len()
        );
        stream.write_all(head.as_bytes()).map_err(io)?;
        stream.write_all(body).map_err(io)?;
        let mut answer = Vec::new();
        stream
            .take(MAX_ANSWER_BYTES + 1)
            .read_to_end(&mut answer)
            .map_err(io)?;
        if answer.len() as u64 > MAX_ANSWER_BYTES {
            return Err(self.bad("the answer is over 1 GiB"));
        }
        Ok(answer)
    }
}

/// The body of an HTTP answer, after checking its status; chunked bodies are joined.
fn http_body(address: &str, answer: &[u8]) -> Result<Vec<u8>, RemoteError> {
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad(address, "no HTTP header"))?;
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let body = &answer[split + 4..];
    let status = head.lines().next().unwrap_or("");
    if !status.starts_with("http/1.1 200") && !status.starts_with("http/1.0 200") {
        let status = navlab::warnings::excerpt(status.trim(), 80);
        return Err(bad(address, &format!("HTTP status \"{status}\"")));
    }
    if !head.contains("transfer-encoding: chunked") {
        return Ok(body.to_vec());
    }
    let mut joined = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| bad(address, "a chunk has no size line"))?;
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| bad(address, "a chunk size is not hexadecimal"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(joined);
        }
        let chunk = rest
            .get(..size)
            .ok_or_else(|| bad(address, "a chunk is shorter than its size"))?;
        joined.extend_from_slice(chunk);
        rest = rest.get(size + 2..).unwrap_or(&[]);
    }
}

fn bad(address: &str, problem: &str) -> RemoteError {
    RemoteError::BadAnswer {
        address: address.to_owned(),
        problem: problem.to_owned(),
    }
}

/// The `result` of a raw HTTP answer to a JSON-RPC call of `method` from the game at
/// `address`: the HTTP status checked, a chunked body joined, the JSON parsed, an `error`
/// turned into [`RemoteError::Refused`].
pub fn answer_result(address: &str, method: &str, answer: &[u8]) -> Result<Value, RemoteError> {
    let body = http_body(address, answer)?;
    let value: Value = serde_json::from_slice(&body)
        .map_err(|e| bad(address, &format!("its JSON does not parse: {e}")))?;
    if let Some(error) = value.get("error") {
        // The game's words, cut to one printable line.
        let message = navlab::warnings::excerpt(
            error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message"),
            200,
        );
        return Err(RemoteError::Refused {
            method: method.to_owned(),
            message,
        });
    }
    value
        .get("result")
        .cloned()
        .ok_or_else(|| bad(address, "the answer has neither a result nor an error"))
}

/// The level in a `navlab.sources` result: every source's triangles as one mesh, each index
/// checked against its own source's vertices.
pub fn level_from_result(address: &str, result: &Value) -> Result<RemoteLevel, RemoteError> {
    let list = result
        .get("sources")
        .and_then(Value::as_array)
        .ok_or_else(|| bad(address, "navlab.sources has no \"sources\" list"))?;
    let mut verts: Vec<f32> = Vec::new();
    let mut tris: Vec<i32> = Vec::new();
    let mut sources = Vec::with_capacity(list.len());
    for source in list {
        let numbers = |key: &str| {
            source
                .get(key)
                .and_then(Value::as_array)
                .ok_or_else(|| bad(address, &format!("a source has no \"{key}\" list")))
        };
        let vertices = numbers("vertices")?;
        let indices = numbers("indices")?;
        if vertices.len() % 3 != 0 || indices.len() % 3 != 0 {
            return Err(bad(
                address,
                "a source's vertices or indices are not in threes",
            ));
        }
        let base = verts.len() / 3;
        let count = vertices.len() / 3;
        for v in vertices {
            let v = v
                .as_f64()
                .ok_or_else(|| bad(address, "a vertex coordinate is not a number"))?;
            verts.push(v as f32);
        }
        for i in indices {
            let i = i
                .as_u64()
                .filter(|&i| i < count as u64)
                .ok_or_else(|| bad(address, "an index is not a vertex of its source"))?;
            let global = i32::try_from(base + i as usize)
                .map_err(|_| RemoteError::Level("too many vertices for 32-bit indices".into()))?;
            tris.push(global);
        }
        sources.push(RemoteSource {
            entity: source.get("entity").and_then(Value::as_u64).unwrap_or(0),
            name: source
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned),
            triangles: indices.len() / 3,
        });
    }
    if tris.is_empty() {
        return Err(RemoteError::Level(
            "the game has no NavMeshSource with triangles".into(),
        ));
    }
    let mesh = TriMesh::from_parts(verts, tris).map_err(|e| RemoteError::Level(e.to_string()))?;
    Ok(RemoteLevel { mesh, sources })
}
