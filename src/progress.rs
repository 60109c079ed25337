//! Progress on the terminal: an indicatif bar where stderr is a terminal,
//! a plain line now and then where it is not (a log file, CI). Progress
//! goes to stderr and never into results.

use indicatif::{ProgressBar, ProgressStyle};
use sim_core::{SimDuration, SimTime};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A run shows progress only once it has taken this long.
const QUIET_FOR: Duration = Duration::from_secs(2);
/// Plain progress lines (no terminal) come at most this often.
const LINE_EVERY: Duration = Duration::from_secs(10);

/// Simulated-time progress of one run: with a stop time, a bar of
/// simulated time with its percentage and an ETA; without, a spinner with
/// the simulated time and events per second.
pub struct SimProgress {
    started: Instant,
    stop: Option<SimDuration>,
    bar: Option<ProgressBar>,
    last_line: Instant,
    terminal: bool,
    /// Progress calls so far (one per `runner::PROGRESS_EVENTS` events).
    calls: u64,
}

/// A simulated time in the unit that suits it.
fn sim_time(ps: u64) -> String {
    let s = ps as f64 / 1e12;
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

impl SimProgress {
    /// Progress of a run that stops at `stop` (`None`: when its traffic ends).
    pub fn new(stop: Option<SimDuration>) -> SimProgress {
        let now = Instant::now();
        SimProgress {
            started: now,
            stop,
            bar: None,
            last_line: now,
            terminal: std::io::stderr().is_terminal(),
            calls: 0,
        }
    }

    /// The run has reached simulated time `t`.
    pub fn update(&mut self, t: SimTime) {
        self.calls += 1;
        if self.started.elapsed() < QUIET_FOR {
            return;
        }
        let events = self.calls * crate::runner::PROGRESS_EVENTS;
        let rate = events as f64 / self.started.elapsed().as_secs_f64().max(1e-9) / 1e6;
        let message = match self.stop {
            Some(d) => format!("{} of {}", sim_time(t.ps()), sim_time(d.ps())),
            None => format!("{}, {rate:.2} M events/s", sim_time(t.ps())),
        };
        if self.terminal {
            let stop = self.stop;
            let bar = self.bar.get_or_insert_with(|| {
                let (bar, template) = match stop {
                    Some(d) => (
                        ProgressBar::new(d.ps().max(1)),
                        "simulated {msg} [{bar:30}] {percent}% {elapsed} (eta {eta})",
                    ),
                    None => (
                        ProgressBar::new_spinner(),
                        "{spinner} simulated {msg} {elapsed}",
                    ),
                };
                if let Ok(style) = ProgressStyle::with_template(template) {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar
            });
            bar.set_message(message);
            if stop.is_some() {
                bar.set_position(t.ps());
            } else {
                bar.tick();
            }
        } else if self.last_line.elapsed() >= LINE_EVERY {
            self.last_line = Instant::now();
            let percent = self.stop.map_or(String::new(), |d| {
                format!(" ({:.0}%)", t.ps() as f64 / d.ps().max(1) as f64 * 100.0)
            });
            eprintln!(
                "  simulated {message}{percent} after {:.0} s",
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    /// The run is over: clears the bar.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Runs done out of a sweep's total.
pub struct SweepProgress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
}

impl SweepProgress {
    /// Progress of `total` runs, `done` of them already finished.
    pub fn new(total: u64, done: u64) -> SweepProgress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} runs {pos}/{len} [{bar:30}] {elapsed} (eta {eta}) {msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_position(done);
            bar
        });
        SweepProgress { bar, total, done }
    }

    /// One more run is done: `what` names it.
    pub fn run_done(&mut self, what: &str) {
        self.done += 1;
        match &self.bar {
            Some(bar) => {
                bar.set_message(what.to_string());
                bar.set_position(self.done);
            }
            None => eprintln!("[{}/{}] {what}", self.done, self.total),
        }
    }

    /// Prints a line without tearing the bar.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// The sweep is over (or stopped): clears the bar.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
