//! Which keys of a scenario hold its most extreme values: the longest
//! durations and the slowest rates. A run whose events would pass the end
//! of representable time (2^64 ps, about 213 days) names them, since one
//! of them is almost always why (a 1 bps link, a timer of months).

use sim_core::Bandwidth;
use sim_core::units::parse_duration;

/// The scenario's longest duration and slowest rate, each with its key
/// (`topology.link_rate = "1bps"`), from the file's text and the overrides
/// (`KEY=VALUE`, applied last); `None` where it has none.
pub fn extremes(text: &str, overrides: &[String]) -> (Option<String>, Option<String>) {
    let mut values: Vec<(String, String)> = Vec::new();
    if let Ok(doc) = text.parse::<toml::Table>() {
        walk(&toml::Value::Table(doc), String::new(), &mut values);
    }
    for o in overrides {
        if let Some((k, v)) = o.split_once('=') {
            let v = v.trim().trim_matches('"').to_string();
            values.push((k.trim().to_string(), v));
        }
    }
    let longest = values
        .iter()
        .filter_map(|(k, v)| parse_duration(v).ok().map(|d| (d.ps(), k, v)))
        .max_by_key(|x| x.0)
        .map(|(_, k, v)| format!("{k} = \"{v}\""));
    let slowest = values
        .iter()
        .filter_map(|(k, v)| Bandwidth::parse(v).ok().map(|r| (r.bps(), k, v)))
        .min_by_key(|x| x.0)
        .map(|(_, k, v)| format!("{k} = \"{v}\""));
    (longest, slowest)
}

/// Every string value under `v`, with its dotted key.
fn walk(v: &toml::Value, key: String, out: &mut Vec<(String, String)>) {
    match v {
        toml::Value::String(s) => out.push((key, s.clone())),
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                walk(v, key, out);
            }
        }
        toml::Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                walk(v, format!("{key}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_longest_duration_and_the_slowest_rate() {
        let text = "[topology]\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[[workload]]\nstart = \"2s\"\n";
        let (long, slow) = extremes(text, &["topology.link_rate=\"1bps\"".into()]);
        assert_eq!(long.as_deref(), Some("workload[0].start = \"2s\""));
        assert_eq!(slow.as_deref(), Some("topology.link_rate = \"1bps\""));
    }
}
