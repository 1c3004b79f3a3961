//! FastLZ (the public format, levels 1 and 2, as the copy RecastDemo ships in its Contrib
//! folder), for the compressed layers of tile-cache files: [`compress`] gives the bytes
//! RecastDemo's `fastlz_compress` gives, so tile-cache files match C++'s, and [`decompress`]
//! checks every length and distance against the input and the output limit, so a hostile file
//! is an error, never an overrun.

/// Longest literal run of one block.
const MAX_COPY: usize = 32;
/// Longest match of one level-1 block.
const MAX_LEN: usize = 264;
const HASH_LOG: u32 = 13;
const HASH_SIZE: usize = 1 << HASH_LOG;

/// Compresses `data` as `fastlz_compress` does: level 1 below 64 KiB, level 2 from there.
pub fn compress(data: &[u8]) -> Vec<u8> {
    compress_level(data, if data.len() < 65536 { 1 } else { 2 })
}

/// FastLZ's compressor at `level` (1 or 2): a hash of each position's next three bytes finds
/// earlier matches; positions are visited, hashed and encoded in FastLZ's exact order.
fn compress_level(data: &[u8], level: u8) -> Vec<u8> {
    let length = data.len();
    let mut out = Vec::with_capacity(length + length / 16 + 66);
    if length < 4 {
        if length > 0 {
            out.push((length - 1) as u8);
            out.extend_from_slice(data);
        }
        return out;
    }
    // Level 1 reaches 8192 back; level 2 8191 with its short form and far beyond with the long.
    let (near, farthest) = if level == 1 {
        (8192, 8192)
    } else {
        (8191, 65535 + 8191 - 1)
    };
    let bound = length - 2;
    let limit = length.saturating_sub(12);
    let read16 = |p: usize| u32::from(data[p]) | (u32::from(data[p + 1]) << 8);
    let hash = |p: usize| {
        let v = read16(p);
        ((v ^ read16(p + 1) ^ (v >> (16 - HASH_LOG))) as usize) & (HASH_SIZE - 1)
    };
    // Positions kept as 32 bits (on the stack, cleared in one go): exact below 4 GiB, and
    // beyond that a reference is still checked byte by byte before it is used.
    let mut table = [0u32; HASH_SIZE];
    let earlier = |table: &[u32; HASH_SIZE], h: usize, at: usize| {
        at - (at as u32).wrapping_sub(table[h]) as usize
    };
    let mut copy = 2;
    out.extend_from_slice(&[(MAX_COPY - 1) as u8, data[0], data[1]]);
    let mut ip = 2;
    while ip < limit {
        let anchor = ip;
        let mut len = 3;
        // The earlier position matching at least three bytes (five when far), if any.
        let found = 'search: {
            if level == 2 && data[ip] == data[ip - 1] && read16(ip - 1) == read16(ip + 1) {
                break 'search Some((1, anchor + 2));
            }
            let h = hash(ip);
            let reference = earlier(&table, h, anchor);
            let distance = anchor - reference;
            table[h] = anchor as u32;
            if distance == 0
                || distance >= farthest
                || data[reference..reference + 3] != data[ip..ip + 3]
            {
                break 'search None;
            }
            if level == 2 && distance >= near {
                if data[reference + 3..reference + 5] != data[ip + 3..ip + 5] {
                    break 'search None;
                }
                len += 2;
                break 'search Some((distance, reference + 5));
            }
            Some((distance, reference + 3))
        };
        let Some((distance, mut reference)) = found else {
            out.push(data[anchor]);
            ip = anchor + 1;
            copy += 1;
            if copy == MAX_COPY {
                copy = 0;
                out.push((MAX_COPY - 1) as u8);
            }
            continue;
        };
        ip = anchor + len;
        // Distances are stored less one; zero is a run of the byte before.
        let mut distance = distance - 1;
        if distance == 0 {
            let run = data[ip - 1];
            while ip < bound {
                let same = data[reference] == run;
                reference += 1;
                if !same {
                    break;
                }
                ip += 1;
            }
        } else {
            // As FastLZ: eight bytes compared unbounded (the loop limit leaves room), then up
            // to the bound; the first differing byte is stepped over too.
            let mut differs = false;
            for _ in 0..8 {
                differs = data[reference] != data[ip];
                reference += 1;
                ip += 1;
                if differs {
                    break;
                }
            }
            while !differs && ip < bound {
                differs = data[reference] != data[ip];
                reference += 1;
                ip += 1;
            }
        }
        if copy > 0 {
            let at = out.len() - copy - 1;
            out[at] = (copy - 1) as u8;
        } else {
            out.pop();
        }
        copy = 0;
        ip -= 3;
        let mut len = ip - anchor;
        let high = (distance >> 8) as u8;
        let low = (distance & 255) as u8;
        if level == 2 {
            if distance < near {
                if len < 7 {
                    out.extend_from_slice(&[((len << 5) as u8) + high, low]);
                } else {
                    out.push((7 << 5) + high);
                    len -= 7;
                    while len >= 255 {
                        out.push(255);
                        len -= 255;
                    }
                    out.extend_from_slice(&[len as u8, low]);
                }
            } else {
                distance -= near;
                let (far_high, far_low) = ((distance >> 8) as u8, (distance & 255) as u8);
                if len < 7 {
                    out.extend_from_slice(&[((len << 5) as u8) + 31, 255, far_high, far_low]);
                } else {
                    out.push((7 << 5) + 31);
                    len -= 7;
                    while len >= 255 {
                        out.push(255);
                        len -= 255;
                    }
                    out.extend_from_slice(&[len as u8, 255, far_high, far_low]);
                }
            }
        } else {
            while len > MAX_LEN - 2 {
                out.extend_from_slice(&[(7 << 5) + high, (MAX_LEN - 2 - 7 - 2) as u8, low]);
                len -= MAX_LEN - 2;
            }
            if len < 7 {
                out.extend_from_slice(&[((len << 5) as u8) + high, low]);
            } else {
                out.extend_from_slice(&[(7 << 5) + high, (len - 7) as u8, low]);
            }
        }
        table[hash(ip)] = ip as u32;
        ip += 1;
        table[hash(ip)] = ip as u32;
        ip += 1;
        out.push((MAX_COPY - 1) as u8);
    }
    while ip < length {
        out.push(data[ip]);
        ip += 1;
        copy += 1;
        if copy == MAX_COPY {
            copy = 0;
            out.push((MAX_COPY - 1) as u8);
        }
    }
    if copy > 0 {
        let at = out.len() - copy - 1;
        out[at] = (copy - 1) as u8;
    } else {
        out.pop();
    }
    if level == 2 {
        out[0] |= 1 << 5;
    }
    out
}

/// Why compressed bytes could not be expanded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FastLzError {
    #[error("the compressed data is empty")]
    /// No bytes at all.
    Empty,
    #[error("the compressed data says FastLZ level {0}; only levels 1 and 2 exist")]
    /// A level byte other than 1 or 2 (the one found).
    UnknownLevel(u8),
    #[error("the compressed data ends inside a block at byte {0}")]
    /// A block cut short (at that byte).
    Truncated(usize),
    #[error("a match at byte {0} reaches before the start of the output")]
    /// A back reference before the output's start (at that byte).
    BadDistance(usize),
    #[error("the data expands to more than the {0} bytes expected")]
    /// More output than expected (the bytes expected).
    TooLong(usize),
}

/// Expands FastLZ data into at most `max_output` bytes.
pub fn decompress(input: &[u8], max_output: usize) -> Result<Vec<u8>, FastLzError> {
    let mut out = Vec::with_capacity(max_output.min(input.len().saturating_mul(256)));
    decompress_into(input, max_output, &mut out)?;
    Ok(out)
}

/// [`decompress`] into `out` (cleared first), so a caller expanding many blocks reuses one
/// buffer.
pub fn decompress_into(
    input: &[u8],
    max_output: usize,
    out: &mut Vec<u8>,
) -> Result<(), FastLzError> {
    out.clear();
    let first = *input.first().ok_or(FastLzError::Empty)?;
    let level = (first >> 5) + 1;
    if level > 2 {
        return Err(FastLzError::UnknownLevel(level));
    }
    // No block expands more than 256 times (a run's length bytes add at most 255 each), so
    // the output fits in this many bytes and is written in place, then cut to its length.
    let limit = max_output.min(input.len().saturating_mul(256));
    out.resize(limit, 0);
    let expanded = expand(input, level, max_output, out);
    out.truncate(*expanded.as_ref().unwrap_or(&0));
    expanded.map(|_| ())
}

/// The blocks of `input` (of `level`) written into `out`, which is as long as the output may
/// grow; returns the output's length.
fn expand(
    input: &[u8],
    level: u8,
    max_output: usize,
    out: &mut [u8],
) -> Result<usize, FastLzError> {
    let limit = out.len();
    let mut op = 0;
    let mut ip = 1;
    let mut ctrl = usize::from(input[0] & 31);
    let byte = |ip: &mut usize| -> Result<usize, FastLzError> {
        let b = *input.get(*ip).ok_or(FastLzError::Truncated(*ip))?;
        *ip += 1;
        Ok(usize::from(b))
    };
    loop {
        if ctrl >= 32 {
            // A match: `len + 2` bytes copied from `distance` back.
            let at = ip;
            let mut len = (ctrl >> 5) - 1;
            let mut offset = (ctrl & 31) << 8;
            if len == 6 {
                if level == 1 {
                    len += byte(&mut ip)?;
                } else {
                    loop {
                        let code = byte(&mut ip)?;
                        len += code;
                        if code != 255 {
                            break;
                        }
                    }
                }
            }
            let code = byte(&mut ip)?;
            offset += code;
            if level == 2 && code == 255 && offset == (31 << 8) + 255 {
                // A 16-bit distance beyond the 8191 of the short form.
                offset = (byte(&mut ip)? << 8) + byte(&mut ip)? + 8191;
            }
            let distance = offset + 1;
            let count = len + 3;
            if distance > op {
                return Err(FastLzError::BadDistance(at));
            }
            if op + count > limit {
                return Err(FastLzError::TooLong(max_output));
            }
            // The source may overlap what is being written (runs): the output repeats the
            // `distance` bytes before it, so a run of one byte is a fill, and longer
            // patterns are copied from their start in chunks that double.
            let from = op - distance;
            let end = op + count;
            if distance == 1 {
                let byte = out[from];
                out[op..end].fill(byte);
            } else {
                while op < end {
                    let n = (end - op).min(op - from);
                    out.copy_within(from..from + n, op);
                    op += n;
                }
            }
            op = end;
        } else {
            let count = ctrl + 1;
            let literal = input
                .get(ip..ip + count)
                .ok_or(FastLzError::Truncated(ip))?;
            if op + count > limit {
                return Err(FastLzError::TooLong(max_output));
            }
            out[op..op + count].copy_from_slice(literal);
            op += count;
            ip += count;
        }
        match input.get(ip) {
            Some(&b) => {
                ctrl = usize::from(b);
                ip += 1;
            }
            None => return Ok(op),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_matches_and_runs_expand() {
        // Literal "abc", then a match of 3 bytes 3 back ("abc"), then a run of 4 "c"s.
        let data = [2, b'a', b'b', b'c', 0b001_00000, 2, 0b010_00000, 0];
        assert_eq!(decompress(&data, 64).unwrap(), b"abcabccccc");
    }

    #[test]
    fn compressed_data_expands_back_at_both_levels() {
        let mut data: Vec<u8> = (0..70_000u32).map(|i| ((i * 7919) % 251) as u8).collect();
        data[1000..9000].fill(3);
        data.extend(std::iter::repeat_n(9, 300));
        for input in [
            &data[..],
            &data[..65_535],
            &data[..3],
            &data[..4],
            &data[..20],
            &[][..],
        ] {
            let packed = compress(input);
            let expanded = if input.is_empty() {
                Vec::new()
            } else {
                decompress(&packed, input.len()).unwrap()
            };
            assert_eq!(expanded, input, "{} bytes", input.len());
        }
        assert_eq!(compress(&data)[0] >> 5, 1, "level 2 from 64 KiB");
        assert_eq!(compress(&data[..65_535])[0] >> 5, 0, "level 1 below");
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(decompress(&[], 10), Err(FastLzError::Empty));
        assert_eq!(decompress(&[0x60], 10), Err(FastLzError::UnknownLevel(4)));
        assert_eq!(decompress(&[5, 1, 2], 10), Err(FastLzError::Truncated(1)));
        assert_eq!(
            decompress(&[0, 1, 0b001_00000, 9], 10),
            Err(FastLzError::BadDistance(3))
        );
        assert_eq!(
            decompress(&[3, 1, 2, 3, 4], 2),
            Err(FastLzError::TooLong(2))
        );
        assert_eq!(
            decompress(&[0, 1, 0b111_00000], 300),
            Err(FastLzError::Truncated(3))
        );
    }
}
