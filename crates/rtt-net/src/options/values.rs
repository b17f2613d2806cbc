//! One option's value, parsed and checked on its own: the `value_parser`s of the options.

use std::net::{SocketAddr, ToSocketAddrs};

use crate::wire::{self, MAX_TCP_PAYLOAD};

pub(super) fn parse_address(text: &str) -> Result<SocketAddr, String> {
    let hint = "expected HOST:PORT, e.g. 127.0.0.1:9009";
    let mut addresses = text.to_socket_addrs().map_err(|e| format!("{e}; {hint}"))?;
    addresses
        .next()
        .ok_or_else(|| format!("'{text}' resolves to no address; {hint}"))
}

pub(super) fn parse_variant(text: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-".contains(c);
    match text.chars().all(allowed) && !text.is_empty() {
        true => Ok(text.to_owned()),
        false => Err("letters, digits, '.', '_' and '-' only, e.g. tokio-ei8".to_owned()),
    }
}

pub(super) fn parse_size(text: &str) -> Result<usize, String> {
    let size: usize = text
        .parse()
        .map_err(|_| "not a whole number of bytes".to_owned())?;
    if size < wire::SEQ_LEN {
        return Err(format!(
            "must be at least {} bytes, the sequence number",
            wire::SEQ_LEN
        ));
    }
    if size > MAX_TCP_PAYLOAD {
        return Err(format!("must be at most {MAX_TCP_PAYLOAD} bytes"));
    }
    Ok(size)
}

pub(super) fn parse_seconds(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| "not a number of seconds".to_owned())?;
    if !seconds.is_finite() || seconds < 0.0 {
        return Err("must be a finite number of seconds, 0 or more".to_owned());
    }
    Ok(seconds)
}

pub(super) fn parse_positive_seconds(text: &str) -> Result<f64, String> {
    match parse_seconds(text)? {
        s if s > 0.0 => Ok(s),
        _ => Err("must be more than 0 seconds".to_owned()),
    }
}

pub(super) fn parse_interval(text: &str) -> Result<f64, String> {
    let seconds = parse_seconds(text)?;
    if seconds > 0.0 && seconds < 1e-6 {
        return Err("must be 0 (back-to-back) or at least 0.000001 s".to_owned());
    }
    Ok(seconds)
}

pub(super) fn parse_rate(text: &str) -> Result<f64, String> {
    let rate: f64 = text
        .parse()
        .map_err(|_| "not a number of messages per second".to_owned())?;
    if !rate.is_finite() || rate <= 0.0 || rate > 1e6 {
        return Err(
            "must be more than 0 and at most 1000000 msg/s; omit it for back-to-back".to_owned(),
        );
    }
    Ok(rate)
}
