//! Inputs that once panicked, hung or were silently ignored: each is now a
//! load-time error naming the file, line and key with the valid range.
use dcnsim::scenario::parse_str;

/// A RoCE incast over PFC; `{cc}` is the transport's `cc` value and
/// `{roce}`/`{output}` more lines of `[transport]` and `[output]`.
fn roce(cc: &str, roce: &str, output: &str) -> String {
    format!(
        "[topology]\nkind = \"star\"\nhosts = 5\nlink_rate = \"100Gbps\"\nlink_delay = \"1us\"\n\
         [switch]\nshared_buffer = \"1MiB\"\n[switch.pfc]\nheadroom = \"standard\"\n\
         [transport]\nkind = \"roce\"\ncc = {cc}\n{roce}\n\
         [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-4\"\nsize = \"100KB\"\n\
         [output]\n{output}\n"
    )
}

/// The error `text` gets; its line must hold `needle`, its message `says`.
fn refused(text: &str, needle: &str, says: &str) {
    let e = match parse_str("bad.toml", text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    };
    let s = e.to_string();
    let line = text.lines().position(|l| l.contains(needle)).map(|i| i + 1);
    assert_eq!(Some(e.line), line, "at the line of '{needle}': {s}");
    assert!(s.starts_with("bad.toml:"), "{s}");
    assert!(s.contains(says), "'{says}' not in: {s}");
}

#[test]
fn the_roce_base_is_valid() {
    let text = roce("\"dcqcn\"", "", "");
    parse_str("ok.toml", &text).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn delays_and_sizes_are_bounded_at_load() {
    let text = roce("\"dcqcn\"", "", "").replace("\"1us\"", "\"10000000s\"");
    refused(&text, "link_delay", "at most 1s");
    let text = roce("\"dcqcn\"", "", "").replace("\"100KB\"", "\"17000000000000000000B\"");
    refused(&text, "size =", "at most 1PB");
}

#[test]
fn dcqcn_timers_have_a_minimum() {
    for key in ["alpha_interval", "rate_timer"] {
        let cc = format!("{{ kind = \"dcqcn\", {key} = \"1ps\" }}");
        refused(&roce(&cc, "", ""), key, "at least 1us");
    }
    let cc = "{ kind = \"dcqcn\", variant = \"ns3rdma\" }";
    refused(
        &roce(cc, "cnp_interval = \"0s\"", ""),
        "cnp_interval",
        "at least 1us",
    );
    refused(
        &roce("\"dcqcn\"", "rto = \"1ps\"", ""),
        "rto",
        "at least 10us",
    );
}

#[test]
fn sampling_intervals_have_a_minimum() {
    for key in ["queue_interval", "goodput_interval", "rtt_interval"] {
        let text = roce("\"dcqcn\"", "", &format!("{key} = \"1ps\""));
        refused(&text, key, "at least 1ns");
    }
}

#[test]
fn keys_the_chosen_variant_does_not_read_are_errors() {
    let cases = [
        (
            "{ kind = \"dcqcn\", decrease_interval = \"4us\" }",
            "decrease_interval",
            "only the mellanox variant",
        ),
        (
            "{ kind = \"dcqcn\", rate_on_first_cnp = 0.5 }",
            "rate_on_first_cnp",
            "only the mellanox variant",
        ),
        (
            "{ kind = \"dcqcn\", variant = \"mellanox\", alpha_initial = 0.5 }",
            "alpha_initial",
            "paper and ns3rdma",
        ),
        (
            "{ kind = \"dcqcn\", clamp = \"after_byte_increase\" }",
            "clamp",
            "ns3rdma's rule",
        ),
        (
            "{ kind = \"rcc\", variant = \"rcc-ewa\", kp = 1.0 }",
            "kp",
            "rcc-ewa has no PID",
        ),
        (
            "{ kind = \"rcc\", variant = \"rcc-pid\", ewa_share = \"eta\" }",
            "ewa_share",
            "without a fair share",
        ),
        (
            "{ kind = \"rcc\", variant = \"rcc-ewa\", eta = 0.9 }",
            "eta",
            "only with ewa_share",
        ),
        (
            "{ kind = \"timely\", min_rate = \"200Gbps\" }",
            "min_rate",
            "above the fastest host link",
        ),
        (
            "{ kind = \"dcqcn\", min_rate = \"101Gbps\" }",
            "min_rate",
            "above the fastest host link",
        ),
    ];
    for (cc, key, says) in cases {
        refused(&roce(cc, "", ""), key, says);
    }
    let mellanox = "{ kind = \"dcqcn\", variant = \"mellanox\" }";
    refused(
        &roce(mellanox, "cnp_interval = \"50us\"", ""),
        "cnp_interval",
        "flags ACKs",
    );
    refused(
        &roce("\"timely\"", "cnp_interval = \"50us\"", ""),
        "cnp_interval",
        "only DCQCN",
    );
}

#[test]
fn a_roce_mtu_above_the_pfc_mtu_is_an_error() {
    let text = roce("\"dcqcn\"", "mtu = \"4000B\"", "");
    refused(&text, "mtu", "above switch.pfc.mtu");
    let raised = text.replace(
        "headroom = \"standard\"",
        "headroom = \"standard\"\nmtu = \"4096B\"",
    );
    parse_str("ok.toml", &raised).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn an_r_aqm_pair_must_be_a_pair() {
    let text = "[topology]\nkind = \"star\"\nhosts = 3\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
                [switch]\nbuffer = \"300pkt\"\n[switch.ingress]\nkind = \"r-aqm\"\nnormal = [1, 1, 1]\n\
                [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-2\"\nsize = \"10KB\"\n";
    refused(text, "normal", "an [alpha, n] pair");
}

#[test]
fn too_many_samples_are_refused_before_the_run() {
    let dir = crate::common::temp_dir("samples");
    let file = dir.join("s.toml");
    std::fs::write(
        &file,
        roce("\"dcqcn\"", "", "queue_interval = \"1ns\"").replace("100KB", "100MB"),
    )
    .expect("write");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["validate".as_ref(), file.as_os_str()])
        .output()
        .expect("runs");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("sampled rows") && e.contains("s.toml"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).expect("cleanup");
}
