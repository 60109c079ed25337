//! Naming nodes and ports in a scenario, one way everywhere: a node by
//! its topology name (`tor3`, `host17`, `p0-agg1`, as `ports.csv` names
//! them) or by its index (`h17` for host 17, `s3` for switch 3, as
//! explicit topologies name them), and a port by its two nodes joined by
//! `->` (`tor3->host17`, `s3->h17`), the node it leaves first. Every key
//! that names a node or a port (`output.queue_ports`, `output.pcap.ports`,
//! `output.events.ports`, `[[failure]] between`,
//! `switch.ingress.switches`) reads both spellings, and an unknown name
//! gets the nearest real one and a sample of the switches and hosts.

use net::TopologyGraph;

/// A topology's node names, for reading what a scenario names.
pub(crate) struct Nodes<'a> {
    names: &'a [String],
    hosts: u32,
}

impl<'a> Nodes<'a> {
    /// The nodes of a topology whose names (hosts first) are `names`.
    pub(crate) fn new(names: &'a [String], hosts: u32) -> Self {
        Nodes { names, hosts }
    }

    /// The node (its index) that `text` names, or why none is.
    pub(crate) fn find(&self, text: &str) -> Result<u32, String> {
        let text = text.trim();
        if let Some(i) = self.names.iter().position(|n| n == text) {
            return Ok(i as u32);
        }
        let switches = self.names.len() as u32 - self.hosts;
        let indexed = |prefix: char, count: u32, base: u32| {
            let n: u32 = text.strip_prefix(prefix)?.parse().ok()?;
            (n < count).then_some(base + n)
        };
        indexed('h', self.hosts, 0)
            .or_else(|| indexed('s', switches, self.hosts))
            .ok_or_else(|| self.unknown(text))
    }

    /// The port `text` (`a->b`) names: its node and the node it leads
    /// to, which must be joined by a cable of `graph`; or why not.
    pub(crate) fn port(&self, text: &str, graph: &TopologyGraph) -> Result<(u32, u32), String> {
        let Some((a, b)) = text.split_once("->") else {
            return Err(format!(
                "\"{text}\" is not a port: name it by its two nodes as ports.csv does, e.g. {}",
                self.example(graph)
            ));
        };
        let (a, b) = (self.find(a)?, self.find(b)?);
        let linked = graph
            .cables
            .iter()
            .any(|c| (c.a.0, c.b.0) == (a, b) || (c.a.0, c.b.0) == (b, a));
        if !linked {
            return Err(format!(
                "\"{text}\" is not a port: {} and {} are not linked (e.g. {})",
                self.names[a as usize],
                self.names[b as usize],
                self.example(graph)
            ));
        }
        Ok((a, b))
    }

    /// `text` in the canonical spelling, `tor3->host17`.
    pub(crate) fn port_name(&self, (a, b): (u32, u32)) -> String {
        format!("{}->{}", self.names[a as usize], self.names[b as usize])
    }

    /// A real port to copy, the first cable's.
    fn example(&self, graph: &TopologyGraph) -> String {
        graph.cables.first().map_or_else(String::new, |c| {
            format!(
                "\"{}\" or \"{}\"",
                self.port_name((c.a.0, c.b.0)),
                self.indexed_name(c.a.0) + "->" + &self.indexed_name(c.b.0)
            )
        })
    }

    /// `h3` or `s0` for node `n`.
    fn indexed_name(&self, n: u32) -> String {
        if n < self.hosts {
            format!("h{n}")
        } else {
            format!("s{}", n - self.hosts)
        }
    }

    /// Why `text` names no node: the nearest name, and some switches and
    /// hosts with how to name them by index.
    fn unknown(&self, text: &str) -> String {
        let (hosts, switches) = self.names.split_at(self.hosts as usize);
        // The first few and the last: a fat-tree's ToRs and its cores.
        let sample = |list: &[String]| match list {
            [first @ .., last] if list.len() > 4 => {
                format!("{}, ..., {last}", first[..3].join(", "))
            }
            _ => list.join(", "),
        };
        let near = nearest(self.names, text)
            .map_or(String::new(), |n| format!(" (did you mean \"{n}\"?)"));
        format!(
            "no node is named \"{text}\"{near}: the switches are {} (or s0 to s{}), the hosts {} \
             (or h0 to h{})",
            sample(switches),
            switches.len().saturating_sub(1),
            sample(hosts),
            hosts.len().saturating_sub(1)
        )
    }
}

/// The name in `names` closest to `text` by edit distance, if one is
/// close (at most a third of its length away).
fn nearest<'n>(names: &'n [String], text: &str) -> Option<&'n str> {
    let (best, d) = names
        .iter()
        .map(|n| (n.as_str(), edit_distance(n, text)))
        .min_by_key(|&(n, d)| (d, n.len()))?;
    (d > 0 && d <= text.chars().count().div_ceil(3).max(1)).then_some(best)
}

/// Levenshtein distance between `a` and `b`, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + (ca != cb) as usize)
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Reads every port and node name of `sc`'s `[output]` against its
/// topology: `queue_ports`' named entries become switches and links by
/// index, and the captured and logged ports take the canonical spelling
/// (`tor0->host3`, as `ports.csv` and the capture files name them). The
/// key at fault (`output.pcap.ports[2]`) and why.
pub(super) fn resolve(sc: &mut super::Scenario) -> Result<(), (String, String)> {
    let out = &sc.output;
    let named_queue = matches!(&out.queue_ports, Some(super::QueuePorts::List(l))
        if l.iter().any(|p| matches!(p, super::PortSelector::Named(_))));
    if out.pcap.is_none() && out.events.as_ref().is_none_or(|e| e.ports.is_none()) && !named_queue {
        return Ok(());
    }
    let graph = sc.topology.spec.shape.build();
    let names = sc.topology.spec.shape.node_names();
    let hosts = sc.topology.spec.size.hosts;
    let nodes = Nodes::new(&names, hosts);
    let canonical = |key: &str, list: &mut Vec<String>| -> Result<(), (String, String)> {
        for i in 0..list.len() {
            let at = |msg| (format!("{key}[{i}]"), msg);
            let port = nodes.port(&list[i], &graph).map_err(at)?;
            list[i] = nodes.port_name(port);
            if list[..i].contains(&list[i]) {
                return Err(at(format!("\"{}\" is named twice", list[i])));
            }
        }
        Ok(())
    };
    if let Some(p) = &mut sc.output.pcap {
        canonical("output.pcap.ports", &mut p.ports)?;
    }
    if let Some(ports) = sc.output.events.as_mut().and_then(|e| e.ports.as_mut()) {
        canonical("output.events.ports", ports)?;
    }
    if let Some(super::QueuePorts::List(list)) = &mut sc.output.queue_ports {
        for (i, sel) in list.iter_mut().enumerate() {
            if let super::PortSelector::Named(text) = sel {
                let at = |msg| (format!("output.queue_ports[{i}]"), msg);
                *sel = queue_port(&nodes, &graph, text, hosts).map_err(at)?;
            }
        }
    }
    Ok(())
}

/// A `queue_ports` entry by topology names: a switch (all its ports) or
/// a switch's port towards a neighbour.
fn queue_port(
    nodes: &Nodes,
    graph: &TopologyGraph,
    text: &str,
    hosts: u32,
) -> Result<super::PortSelector, String> {
    use super::{NodeRef, PortSelector};
    let not_switch = |n: u32| {
        format!(
            "\"{text}\" is not a switch port: {} is a host (host ports are sampled by host \
             index, the last hop towards it)",
            nodes.names[n as usize]
        )
    };
    let node_ref = |n: u32| {
        if n < hosts {
            NodeRef::Host(n)
        } else {
            NodeRef::Switch(n - hosts)
        }
    };
    if text.contains("->") {
        let (a, b) = nodes.port(text, graph)?;
        if a < hosts {
            return Err(not_switch(a));
        }
        return Ok(PortSelector::Link {
            from: a - hosts,
            to: node_ref(b),
        });
    }
    let n = nodes.find(text)?;
    if n < hosts {
        return Err(not_switch(n));
    }
    Ok(PortSelector::Switch(n - hosts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["host0", "host1", "left", "right"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn a_node_is_named_by_its_name_or_its_index() {
        let n = names();
        let nodes = Nodes::new(&n, 2);
        assert_eq!(nodes.find("left"), Ok(2));
        assert_eq!(nodes.find("s1"), Ok(3));
        assert_eq!(nodes.find("h1"), Ok(1));
        assert!(nodes.find("s2").is_err());
        let e = nodes.find("rigth").unwrap_err();
        assert!(
            e.contains("did you mean \"right\"") && e.contains("hosts host0"),
            "{e}"
        );
        assert!(
            e.contains("the switches are left, right (or s0 to s1)"),
            "{e}"
        );
    }

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("tor1", "tor1"), 0);
        assert_eq!(edit_distance("tor1", "tro1"), 2);
        assert_eq!(edit_distance("agg0", "agg10"), 1);
        assert_eq!(nearest(&names(), "zzzzzz"), None);
    }
}
