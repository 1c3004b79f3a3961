//! Whether the desktop can show a file dialog. rfd asks the XDG desktop portal over the D-Bus
//! session bus and, when that fails, runs `zenity`; with neither, its dialogs return nothing, so
//! the viewer shows its in-app browser instead. Checked with a few D-Bus calls of our own over
//! the bus socket: no D-Bus library is needed, and a missing or hung bus costs a short timeout.
//! (Linux and the BSDs only: elsewhere rfd calls the system's own dialogs.)

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The portal service whose FileChooser rfd calls.
const PORTAL: &str = "org.freedesktop.portal.Desktop";

/// Whether a native dialog can appear: the portal is reachable or `zenity` is on `PATH`.
pub fn native_dialog_available() -> bool {
    let env = std::env::var_os;
    portal_reachable(
        env("DBUS_SESSION_BUS_ADDRESS").as_deref(),
        env("XDG_RUNTIME_DIR").as_deref(),
    ) || on_path("zenity", env("PATH").as_deref())
}

/// Whether `program` is an executable file in one of `path`'s folders.
pub fn on_path(program: &str, path: Option<&OsStr>) -> bool {
    path.is_some_and(|path| {
        std::env::split_paths(path).any(|folder| is_executable(&folder.join(program)))
    })
}

fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Where a D-Bus address says the bus listens.
#[derive(Debug, PartialEq, Eq)]
pub enum BusSocket {
    Path(PathBuf),
    /// A Linux abstract socket name.
    Abstract(Vec<u8>),
}

/// The unix sockets of a bus address (`unix:path=…;unix:abstract=…`, values %-escaped), in
/// order; without an address, the bus at `$XDG_RUNTIME_DIR/bus`, where libdbus looks too.
pub fn bus_sockets(address: Option<&OsStr>, runtime_dir: Option<&OsStr>) -> Vec<BusSocket> {
    let runtime_bus = || runtime_dir.map(|dir| BusSocket::Path(Path::new(dir).join("bus")));
    let Some(address) = address.and_then(OsStr::to_str) else {
        return runtime_bus().into_iter().collect();
    };
    address
        .split(';')
        .filter_map(|entry| entry.strip_prefix("unix:"))
        .filter_map(|keys| {
            keys.split(',')
                .find_map(|pair| match pair.split_once('=')? {
                    ("path", value) => Some(BusSocket::Path(PathBuf::from(OsStr::from_bytes(
                        &unescape(value)?,
                    )))),
                    ("abstract", value) => Some(BusSocket::Abstract(unescape(value)?)),
                    ("runtime", "yes") => runtime_bus(),
                    _ => None,
                })
        })
        .collect()
}

/// Decodes a D-Bus address value's `%XX` escapes; `None` for a broken escape.
fn unescape(value: &str) -> Option<Vec<u8>> {
    let mut bytes = Vec::with_capacity(value.len());
    let mut rest = value.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    Some(bytes)
}

/// Whether the session bus answers and the portal service is running or can be started.
pub fn portal_reachable(address: Option<&OsStr>, runtime_dir: Option<&OsStr>) -> bool {
    bus_sockets(address, runtime_dir)
        .iter()
        .find_map(|socket| bus::connect(socket).ok())
        .is_some_and(|stream| bus::service_available(stream, PORTAL).unwrap_or(false))
}

/// The little of the D-Bus wire protocol the portal check needs: EXTERNAL authentication and
/// three calls to the bus itself (`Hello`, `NameHasOwner`, `ListActivatableNames`).
pub mod bus {
    use std::io::{self, BufRead, BufReader, Read, Write};
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    use super::BusSocket;

    /// The longest the check waits on the bus for one read or write.
    const TIMEOUT: Duration = Duration::from_millis(500);
    /// Replies bigger than this are not from a bus daemon.
    const MAX_MESSAGE_BYTES: usize = 1 << 20;
    /// Messages read while waiting for the two replies (the bus also sends signals).
    const MAX_MESSAGES: usize = 32;

    const METHOD_CALL: u8 = 1;
    const METHOD_RETURN: u8 = 2;

    const FIELD_PATH: u8 = 1;
    const FIELD_INTERFACE: u8 = 2;
    const FIELD_MEMBER: u8 = 3;
    const FIELD_REPLY_SERIAL: u8 = 5;
    const FIELD_DESTINATION: u8 = 6;
    const FIELD_SIGNATURE: u8 = 8;

    pub fn connect(socket: &BusSocket) -> io::Result<UnixStream> {
        let stream = match socket {
            BusSocket::Path(path) => UnixStream::connect(path)?,
            #[cfg(target_os = "linux")]
            BusSocket::Abstract(name) => {
                use std::os::linux::net::SocketAddrExt;
                let address = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
                UnixStream::connect_addr(&address)?
            }
            #[cfg(not(target_os = "linux"))]
            BusSocket::Abstract(_) => return Err(io::ErrorKind::Unsupported.into()),
        };
        stream.set_read_timeout(Some(TIMEOUT))?;
        stream.set_write_timeout(Some(TIMEOUT))?;
        Ok(stream)
    }

    /// Whether `service` has an owner on the bus or the bus can start it.
    pub fn service_available<S: Read + Write>(stream: S, service: &str) -> io::Result<bool> {
        let mut stream = BufReader::new(stream);
        authenticate(&mut stream)?;
        let mut calls = method_call(1, "Hello", None);
        calls.extend(method_call(2, "NameHasOwner", Some(service)));
        calls.extend(method_call(3, "ListActivatableNames", None));
        stream.get_mut().write_all(&calls)?;
        let (mut owned, mut activatable) = (None, None);
        for _ in 0..MAX_MESSAGES {
            let reply = read_message(&mut stream)?;
            match reply.reply_serial {
                Some(2) => owned = Some(reply.is_return() && reply.boolean() == Some(true)),
                Some(3) => {
                    activatable = Some(
                        reply.is_return()
                            && reply
                                .strings()
                                .is_some_and(|names| names.contains(&service)),
                    );
                }
                _ => {}
            }
            if let (Some(owned), Some(activatable)) = (owned, activatable) {
                return Ok(owned || activatable);
            }
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "no reply from the bus",
        ))
    }

    /// SASL EXTERNAL without an initial response: the bus takes our identity from the socket.
    fn authenticate<S: Read + Write>(stream: &mut BufReader<S>) -> io::Result<()> {
        stream.get_mut().write_all(b"\0AUTH EXTERNAL\r\n")?;
        let mut line = String::new();
        for _ in 0..4 {
            line.clear();
            stream.by_ref().take(512).read_line(&mut line)?;
            if line.starts_with("OK") {
                return stream.get_mut().write_all(b"BEGIN\r\n");
            }
            if !line.starts_with("DATA") {
                break;
            }
            stream.get_mut().write_all(b"DATA\r\n")?;
        }
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("the bus refused us: {}", line.trim_end()),
        ))
    }

    /// A little-endian call to `org.freedesktop.DBus`, with at most one string argument.
    pub fn method_call(serial: u32, member: &str, argument: Option<&str>) -> Vec<u8> {
        let mut body = Vec::new();
        if let Some(argument) = argument {
            put_string(&mut body, argument);
        }
        let mut message = vec![b'l', METHOD_CALL, 0, 1];
        message.extend((body.len() as u32).to_le_bytes());
        message.extend(serial.to_le_bytes());
        message.extend([0; 4]);
        put_field(&mut message, FIELD_PATH, b'o', "/org/freedesktop/DBus");
        put_field(
            &mut message,
            FIELD_DESTINATION,
            b's',
            "org.freedesktop.DBus",
        );
        put_field(&mut message, FIELD_INTERFACE, b's', "org.freedesktop.DBus");
        put_field(&mut message, FIELD_MEMBER, b's', member);
        if argument.is_some() {
            put_field(&mut message, FIELD_SIGNATURE, b'g', "s");
        }
        let fields_len = (message.len() - 16) as u32;
        message[12..16].copy_from_slice(&fields_len.to_le_bytes());
        pad(&mut message, 8);
        message.extend(body);
        message
    }

    /// One `(yv)` header field whose value is a string, object path or signature.
    fn put_field(message: &mut Vec<u8>, code: u8, signature: u8, value: &str) {
        pad(message, 8);
        message.extend([code, 1, signature, 0]);
        if signature == b'g' {
            message.push(value.len() as u8);
            message.extend(value.as_bytes());
            message.push(0);
        } else {
            put_string(message, value);
        }
    }

    fn put_string(out: &mut Vec<u8>, text: &str) {
        pad(out, 4);
        out.extend((text.len() as u32).to_le_bytes());
        out.extend(text.as_bytes());
        out.push(0);
    }

    fn pad(out: &mut Vec<u8>, alignment: usize) {
        out.resize(out.len().next_multiple_of(alignment), 0);
    }

    /// A message read from the bus: its type, the call it answers and its body.
    pub struct Message {
        pub kind: u8,
        pub reply_serial: Option<u32>,
        little_endian: bool,
        body: Vec<u8>,
    }

    impl Message {
        fn is_return(&self) -> bool {
            self.kind == METHOD_RETURN
        }

        fn u32_at(&self, bytes: &[u8], at: usize) -> Option<u32> {
            read_u32(bytes, at, self.little_endian)
        }

        /// The body as one boolean (`b`).
        pub fn boolean(&self) -> Option<bool> {
            self.u32_at(&self.body, 0).map(|b| b != 0)
        }

        /// The body as an array of strings (`as`).
        pub fn strings(&self) -> Option<Vec<&str>> {
            let end = 4 + self.u32_at(&self.body, 0)? as usize;
            let mut at = 4;
            let mut strings = Vec::new();
            while at < end {
                at = at.next_multiple_of(4);
                let len = self.u32_at(&self.body, at)? as usize;
                let text = self.body.get(at + 4..at + 4 + len)?;
                strings.push(std::str::from_utf8(text).ok()?);
                at += 4 + len + 1;
            }
            Some(strings)
        }
    }

    fn read_u32(bytes: &[u8], at: usize, little_endian: bool) -> Option<u32> {
        let word: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(if little_endian {
            u32::from_le_bytes(word)
        } else {
            u32::from_be_bytes(word)
        })
    }

    fn invalid(what: &str) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
    }

    pub fn read_message(stream: &mut impl Read) -> io::Result<Message> {
        let mut header = [0; 16];
        stream.read_exact(&mut header)?;
        let little_endian = match header[0] {
            b'l' => true,
            b'B' => false,
            _ => return Err(invalid("not a D-Bus message")),
        };
        let word = |at| read_u32(&header, at, little_endian).unwrap_or(0) as usize;
        let (body_len, fields_len) = (word(4), word(12));
        if body_len + fields_len > MAX_MESSAGE_BYTES {
            return Err(invalid("D-Bus message too big"));
        }
        let body_start = (16 + fields_len).next_multiple_of(8);
        let mut rest = vec![0; body_start - 16 + body_len];
        stream.read_exact(&mut rest)?;
        let mut whole = header.to_vec();
        whole.extend(rest);
        let reply_serial = reply_serial(&whole[..16 + fields_len], little_endian);
        Ok(Message {
            kind: header[1],
            reply_serial,
            little_endian,
            body: whole.split_off(body_start),
        })
    }

    /// The REPLY_SERIAL header field, walking the `a(yv)` of fields from byte 16.
    fn reply_serial(header: &[u8], little_endian: bool) -> Option<u32> {
        let mut at = 16;
        while at < header.len() {
            at = at.next_multiple_of(8);
            let code = *header.get(at)?;
            let signature_len = *header.get(at + 1)? as usize;
            let signature = *header.get(at + 2)?;
            at += 2 + signature_len + 1;
            match signature {
                b'u' if code == FIELD_REPLY_SERIAL => {
                    return read_u32(header, at.next_multiple_of(4), little_endian);
                }
                b'u' => at = at.next_multiple_of(4) + 4,
                b's' | b'o' => {
                    at = at.next_multiple_of(4);
                    at += 4 + read_u32(header, at, little_endian)? as usize + 1;
                }
                b'g' => at += 1 + *header.get(at)? as usize + 1,
                _ => return None,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_addresses_name_their_sockets() {
        let sockets = |address: &str| bus_sockets(Some(OsStr::new(address)), None);
        assert_eq!(
            sockets("unix:path=/run/user/1000/bus"),
            [BusSocket::Path("/run/user/1000/bus".into())]
        );
        assert_eq!(
            sockets("unix:abstract=/tmp/dbus-x%2cy,guid=42;tcp:host=a;unix:path=/b%20c"),
            [
                BusSocket::Abstract(b"/tmp/dbus-x,y".to_vec()),
                BusSocket::Path("/b c".into())
            ]
        );
        assert!(sockets("unix:path=/broken%2").is_empty());
        assert_eq!(
            bus_sockets(None, Some(OsStr::new("/run/user/7"))),
            [BusSocket::Path("/run/user/7/bus".into())]
        );
        assert!(bus_sockets(None, None).is_empty());
    }

    #[test]
    fn without_a_bus_or_zenity_there_is_no_native_dialog() {
        let nowhere = OsStr::new("unix:path=/nonexistent/navlab/bus");
        assert!(!portal_reachable(Some(nowhere), None));
        assert!(!on_path("zenity", Some(OsStr::new("/nonexistent/navlab"))));
        assert!(!on_path("zenity", None));
    }

    #[test]
    fn zenity_is_found_on_path_only_when_executable() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("navlab-zenity-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let zenity = dir.join("zenity");
        std::fs::write(&zenity, "#!/bin/sh\n").unwrap();
        let path = std::env::join_paths(["/nonexistent/navlab".into(), dir.clone()]).unwrap();
        assert!(!on_path("zenity", Some(&path)), "not executable yet");
        std::fs::set_permissions(&zenity, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(on_path("zenity", Some(&path)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A bus that speaks just enough D-Bus: it accepts EXTERNAL, sends a signal first (as a
    /// real bus does after `Hello`) and answers the two questions with the given replies.
    fn ask_fake_bus(owned: bool, activatable: &[&str]) -> bool {
        use std::io::{BufRead, BufReader, Read, Write};
        use std::os::unix::net::UnixStream;

        let (client, server) = UnixStream::pair().unwrap();
        let activatable: Vec<String> = activatable.iter().map(|s| s.to_string()).collect();
        let bus = std::thread::spawn(move || {
            let mut reader = BufReader::new(server.try_clone().unwrap());
            let mut writer = server;
            let mut nul = [0];
            reader.read_exact(&mut nul).unwrap();
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            assert_eq!(line, "AUTH EXTERNAL\r\n");
            writer.write_all(b"DATA\r\n").unwrap();
            line.clear();
            reader.read_line(&mut line).unwrap();
            assert_eq!(line, "DATA\r\n");
            writer.write_all(b"OK 1234\r\n").unwrap();
            line.clear();
            reader.read_line(&mut line).unwrap();
            assert_eq!(line, "BEGIN\r\n");
            for _ in 0..3 {
                let call = bus::read_message(&mut reader).unwrap();
                assert_eq!(call.kind, 1, "a method call");
            }
            // A signal, then the answers to calls 2 and 3.
            writer.write_all(&fake_reply(4, None, &[])).unwrap();
            writer
                .write_all(&fake_reply(2, Some(2), &(owned as u32).to_le_bytes()))
                .unwrap();
            let mut names = Vec::new();
            for name in &activatable {
                names.resize(names.len().next_multiple_of(4), 0);
                names.extend((name.len() as u32).to_le_bytes());
                names.extend(name.as_bytes());
                names.push(0);
            }
            let mut body = (names.len() as u32).to_le_bytes().to_vec();
            body.extend(names);
            writer.write_all(&fake_reply(2, Some(3), &body)).unwrap();
        });
        let available = bus::service_available(client, PORTAL).unwrap();
        bus.join().unwrap();
        available
    }

    /// A little-endian message of `kind` with a REPLY_SERIAL field (when given) and `body`.
    fn fake_reply(kind: u8, reply_serial: Option<u32>, body: &[u8]) -> Vec<u8> {
        let mut message = vec![b'l', kind, 0, 1];
        message.extend((body.len() as u32).to_le_bytes());
        message.extend(99u32.to_le_bytes());
        message.extend([0; 4]);
        // A string field first, so the walk has to skip one.
        message.extend([7, 1, b's', 0]);
        message.extend(5u32.to_le_bytes());
        message.extend(b":1.42\0");
        if let Some(serial) = reply_serial {
            message.resize(message.len().next_multiple_of(8), 0);
            message.extend([5, 1, b'u', 0]);
            message.extend(serial.to_le_bytes());
        }
        let fields_len = (message.len() - 16) as u32;
        message[12..16].copy_from_slice(&fields_len.to_le_bytes());
        message.resize(message.len().next_multiple_of(8), 0);
        message.extend(body);
        message
    }

    #[test]
    fn the_portal_counts_when_owned_or_activatable() {
        assert!(ask_fake_bus(true, &[]));
        assert!(ask_fake_bus(false, &["org.a11y.Bus", PORTAL]));
        assert!(!ask_fake_bus(
            false,
            &["org.a11y.Bus", "org.freedesktop.portal.Documents"]
        ));
    }

    #[test]
    fn calls_are_well_formed_messages() {
        let call = bus::method_call(2, "NameHasOwner", Some(PORTAL));
        assert_eq!(call.len() % 8, (4 + PORTAL.len() + 1) % 8);
        let message = bus::read_message(&mut call.as_slice()).unwrap();
        assert_eq!(message.kind, 1);
        assert_eq!(message.reply_serial, None);
    }
}
