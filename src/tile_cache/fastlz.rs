//! FastLZ decompression (the public FastLZ format, levels 1 and 2, as in the copy RecastDemo
//! ships), for the compressed layers of tile-cache files. Every length and distance is checked
//! against the input and the output limit, so a hostile file is an error, never an overrun.

/// Why compressed bytes could not be expanded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FastLzError {
    #[error("the compressed data is empty")]
    Empty,
    #[error("the compressed data says FastLZ level {0}; only levels 1 and 2 exist")]
    UnknownLevel(u8),
    #[error("the compressed data ends inside a block at byte {0}")]
    Truncated(usize),
    #[error("a match at byte {0} reaches before the start of the output")]
    BadDistance(usize),
    #[error("the data expands to more than the {0} bytes expected")]
    TooLong(usize),
}

/// Expands FastLZ data into at most `max_output` bytes.
pub fn decompress(input: &[u8], max_output: usize) -> Result<Vec<u8>, FastLzError> {
    let first = *input.first().ok_or(FastLzError::Empty)?;
    let level = (first >> 5) + 1;
    if level > 2 {
        return Err(FastLzError::UnknownLevel(level));
    }
    let mut out = Vec::with_capacity(max_output.min(input.len().saturating_mul(256)));
    let mut ip = 1;
    let mut ctrl = usize::from(first & 31);
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
            if distance > out.len() {
                return Err(FastLzError::BadDistance(at));
            }
            if out.len() + count > max_output {
                return Err(FastLzError::TooLong(max_output));
            }
            let start = out.len() - distance;
            // Byte by byte: the source may overlap what is being written (runs).
            for k in 0..count {
                out.push(out[start + k]);
            }
        } else {
            let count = ctrl + 1;
            let literal = input
                .get(ip..ip + count)
                .ok_or(FastLzError::Truncated(ip))?;
            if out.len() + count > max_output {
                return Err(FastLzError::TooLong(max_output));
            }
            out.extend_from_slice(literal);
            ip += count;
        }
        match input.get(ip) {
            Some(&b) => {
                ctrl = usize::from(b);
                ip += 1;
            }
            None => return Ok(out),
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
