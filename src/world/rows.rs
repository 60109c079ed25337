//! The rows of a series that grows with the run (`cc.csv`, `goodput.csv`,
//! `rtt.csv`): kept in memory for a caller that reads them back (tests,
//! the library), or handed to a [`RowSink`] as they are taken, which is
//! what `dcnsim run` does, so that a fine interval over a long run costs
//! disk, not memory (a trace row held in memory costs about 67 B).

/// Where a series' rows go as they are taken.
pub trait RowSink<T>: Send {
    /// Takes one row.
    fn record(&mut self, row: &T);
    /// Flushes what was recorded; the first error met, if any.
    fn finish(&mut self) -> std::io::Result<()>;
}

/// A series' rows: kept, or streamed to a sink.
pub(super) struct Rows<T> {
    kept: Vec<T>,
    sink: Option<Box<dyn RowSink<T>>>,
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows {
            kept: Vec::new(),
            sink: None,
        }
    }
}

impl<T> Rows<T> {
    /// Adds one row.
    pub fn push(&mut self, row: T) {
        match self.sink.as_mut() {
            Some(s) => s.record(&row),
            None => self.kept.push(row),
        }
    }

    /// The rows kept (none once streamed).
    pub fn kept(&self) -> &[T] {
        &self.kept
    }

    /// Streams the rows to come to `sink`.
    pub fn stream_to(&mut self, sink: Box<dyn RowSink<T>>) {
        self.sink = Some(sink);
    }

    /// The sink, to finish it.
    pub fn take_sink(&mut self) -> Option<Box<dyn RowSink<T>>> {
        self.sink.take()
    }
}

/// The sinks of the series that grow with the run; `None` keeps a series'
/// rows in memory.
#[derive(Default)]
pub struct SeriesSinks {
    /// `queues.csv`'s rows (`[output] queue_interval`).
    pub queues: Option<Box<dyn RowSink<super::QueueSample>>>,
    /// `cc.csv`'s rows (`[output] cc_trace`).
    pub cc: Option<Box<dyn RowSink<super::CcSample>>>,
    /// `goodput.csv`'s rows (`[output] goodput_interval`).
    pub goodput: Option<Box<dyn RowSink<super::GoodputSample>>>,
    /// `rtt.csv`'s rows (`[output] rtt_interval`).
    pub rtt: Option<Box<dyn RowSink<super::RttRow>>>,
}

impl super::World {
    /// Streams the rows of each series that is on to its sink in `sinks`
    /// (a sink for a series that is off is dropped unused).
    pub fn stream_series_to(&mut self, sinks: SeriesSinks) {
        if let (Some(_), Some(s)) = (self.sample_interval, sinks.queues) {
            self.queue_samples.stream_to(s);
        }
        if let (Some(t), Some(s)) = (self.cc_trace.as_mut(), sinks.cc) {
            t.rows.stream_to(s);
        }
        if let (Some(g), Some(s)) = (self.goodput.as_mut(), sinks.goodput) {
            g.rows.stream_to(s);
        }
        if let (true, Some(s)) = (self.metrics.rtt_series_on(), sinks.rtt) {
            self.metrics.rows.stream_to(s);
        }
    }

    /// Finishes every sink given to [`crate::world::World::stream_series_to`]: the first
    /// error met, if any (each sink names its file).
    pub fn finish_series(&mut self) -> std::io::Result<()> {
        let queues = self.queue_samples.take_sink();
        let cc = self.cc_trace.as_mut().and_then(|t| t.rows.take_sink());
        let goodput = self.goodput.as_mut().and_then(|g| g.rows.take_sink());
        let rtt = self.metrics.rows.take_sink();
        let results = [
            queues.map(|mut s| s.finish()),
            cc.map(|mut s| s.finish()),
            goodput.map(|mut s| s.finish()),
            rtt.map(|mut s| s.finish()),
        ];
        results.into_iter().flatten().collect()
    }
}
