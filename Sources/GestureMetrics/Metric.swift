/// A metric the daemon exposes: its name (a counter's without `_total`), type, label names and
/// help, and where its samples are in a snapshot. ``all`` declares every one, once; the exposition
/// renders them in that order (``MetricsSnapshot/families``), `status` carries the same values
/// (its ``Counter``s under their keys), and docs/FLEET.md's table is checked against them
/// (MetricsExpositionTests). Label sets are bounded: recognizers by the configuration's names (a
/// client's recognizers by kind only), failures by the engine's checks, transports, results and
/// causes by fixed words, panels by the devices open.
public struct Metric: Sendable {
    public let name: String
    public let kind: MetricFamily.Kind
    public let labels: [String]
    public let help: String
    /// Its samples in a snapshot; nil leaves the family out (a time that has not come yet).
    let samples: @Sendable (MetricsSnapshot) -> [MetricFamily.Sample]?

    /// `values`: each sample's label values (in the order of `labels`) and value.
    init(
        _ name: String, _ kind: MetricFamily.Kind, labels: [String] = [], _ help: String,
        values: @escaping @Sendable (MetricsSnapshot) -> [(labels: [String], value: Double)]?
    ) {
        self.name = name
        self.kind = kind
        self.labels = labels
        self.help = help
        let suffix = kind == .counter ? "_total" : kind == .info ? "_info" : ""
        samples = { s in
            values(s)?.map { MetricFamily.Sample(suffix: suffix, labels: Array(zip(labels, $0.labels)), value: $0.value) }
        }
    }

    /// A histogram in seconds.
    init(histogram name: String, _ help: String, _ histogram: @escaping @Sendable (MetricsSnapshot) -> Histogram) {
        self.name = name
        kind = .histogram
        labels = ["le"]
        self.help = help
        samples = { histogram($0).samples }
    }

    /// A counter without labels.
    static func counter(_ name: String, _ help: String, _ counter: Counter) -> Metric {
        Metric(name, .counter, help) { [([], Double($0.counts[counter]))] }
    }

    /// A counter with one label, a ``Counter`` for each of its values.
    static func counter(_ name: String, _ help: String, label: String, _ counters: [(String, Counter)]) -> Metric {
        Metric(name, .counter, labels: [label], help) { s in counters.map { ([$0.0], Double(s.counts[$0.1])) } }
    }

    /// A gauge without labels; left out while its value is nil.
    static func gauge(_ name: String, _ help: String, _ value: @escaping @Sendable (MetricsSnapshot) -> Double?) -> Metric {
        Metric(name, .gauge, help) { s in value(s).map { [([], $0)] } }
    }

    /// A value of each panel open now, labelled with its label; a panel without one has no sample.
    static func perPanel(
        _ name: String, _ kind: MetricFamily.Kind, _ help: String,
        _ value: @escaping @Sendable (MetricsSnapshot.Panel) -> Double?
    ) -> Metric {
        Metric(name, kind, labels: ["panel"], help) { s in s.panels.compactMap { p in value(p).map { ([p.label], $0) } } }
    }

    /// Every metric, in the order the exposition lists them.
    public static let all: [Metric] = [
        Metric("gestured_build", .info, labels: ["version"], "The daemon's version.") { [([$0.version], 1)] },
        gauge("gestured_start_time_seconds", "When the daemon started, in Unix time.") { $0.startTime },
        counter("gestured_frames_read", "Touch frames read from the panels (or a recording).", .framesRead),
        counter("gestured_touches_read", "Contacts that landed on the panels.", .touchesRead),
        counter("gestured_mirror_frames_written", "Frames written to passthrough mirror devices.", .mirrorFrames),
        Metric(
            "gestured_gestures", .counter, labels: ["owner", "recognizer", "kind", "state"],
            "Gesture reports by recognizer and state (a client's recognizers by kind, with an empty name)."
        ) { s in s.gestures.map { ([$0.owner, $0.recognizer, $0.kind, $0.state], Double($0.count)) } },
        Metric(
            "gestured_recognizer_failures", .counter, labels: ["kind", "reason"],
            "Recognizers that failed, by kind and reason (a check of the recognizer, or arbitration)."
        ) { s in s.failures.map { ([$0.kind, $0.reason], Double($0.count)) } },
        Metric("gestured_clients_connected", .gauge, labels: ["transport"], "Clients connected now, by transport.") { s in
            s.transports.map { ([$0.transport], Double($0.connected)) }
        },
        byTransport("gestured_clients_accepted", "Client connections admitted, by transport.") { $0.accepted },
        byTransport("gestured_clients_refused", "Client connections refused (limits, stopping), by transport.") {
            $0.refused
        },
        byTransport(
            "gestured_messages_dropped", "Updates left out for clients that read too slowly (coalesced), by transport."
        ) { $0.messagesDropped },
        byTransport("gestured_clients_overflowed", "Clients disconnected because their queue overflowed, by transport.") {
            $0.overflowed
        },
        counter(
            "gestured_definitions", "Client definition changes the engine accepted and refused.", label: "result",
            [("accepted", .definitionsAccepted), ("refused", .definitionsRefused)]),
        counter(
            "gestured_reloads", "Configuration reloads that replaced the configuration, and those that failed and kept it.",
            label: "result", [("succeeded", .reloadsSucceeded), ("failed", .reloadsFailed)]),
        counter(
            "gestured_screen_wakes", "Touches that woke a panel's screen and reached nobody, by cause (screen-off, idle).",
            label: "cause", [("screen-off", .wakesScreenOff), ("idle", .wakesIdle)]),
        counter(
            "gestured_contacts_swallowed", "Contacts swallowed by wakes: the waking touch and those landing with it.",
            .contactsSwallowed),
        counter("gestured_contacts_ignored", "Contacts that landed in a dead zone (devices[].ignore).", .contactsIgnored),
        counter(
            "gestured_stuck_contacts_ended", "Contacts held still past the stuck-contact limit and ended.", .stuckContactsEnded),
        counter(
            "gestured_stuck_contacts_recurring",
            "Stuck contacts ended where one was ended before on the same panel: a panel failing there.",
            .stuckContactsRecurring),
        counter(
            "gestured_screen_state_reads", "Screen states taken at a landing after a quiet moment (the file is read off the input thread).", .screenReads),
        gauge(
            "gestured_configuration_loaded_timestamp_seconds",
            "When the running configuration was loaded (at start or by the last good reload), in Unix time."
        ) { $0.configurationLoaded },
        gauge("gestured_last_touch_timestamp_seconds", "When a contact last landed or moved on any panel, in Unix time.") {
            $0.lastTouch
        },
        perPanel("gestured_panel_present", .gauge, "The panels open now, by label (always 1).") { _ in 1 },
        perPanel("gestured_panel_grabbed", .gauge, "Whether the panel is grabbed with a passthrough mirror, by label.") {
            $0.grabbed ? 1 : 0
        },
        perPanel(
            "gestured_panel_last_touch_timestamp_seconds", .gauge,
            "When a contact last landed or moved on the panel, in Unix time."
        ) { $0.lastTouch },
        perPanel(
            "gestured_panel_stuck_contacts_ended", .counter,
            "Contacts held still past the stuck-contact limit and ended, on the panel since it was added (panels with a stage)."
        ) { $0.stuckContactsEnded.map { Double($0) } },
        perPanel(
            "gestured_panel_stuck_contacts_recurring", .counter,
            "Stuck contacts ended where one was ended before, on the panel since it was added (panels with a stage)."
        ) { $0.stuckContactsRecurring.map { Double($0) } },
        Metric(
            "gestured_input_thread_cpu_seconds", .counter,
            "CPU time the input thread has used (reading panels, the engine, writing lines)."
        ) { [([], $0.inputThreadCPUSeconds)] },
        Metric(
            histogram: "gestured_frame_to_line_latency_seconds",
            "From a frame's kernel time to its lines written to the clients (one publication in 8)."
        ) { $0.frameToLine },
    ]

    private static func byTransport(
        _ name: String, _ help: String, _ value: @escaping @Sendable (MetricsSnapshot.TransportCounts) -> UInt64
    ) -> Metric {
        Metric(name, .counter, labels: ["transport"], help) { s in s.transports.map { ([$0.transport], Double(value($0))) } }
    }
}

extension MetricsSnapshot {
    /// Every metric of ``Metric/all`` with its samples in this snapshot.
    public var families: [MetricFamily] {
        Metric.all.compactMap { metric in
            metric.samples(self).map { MetricFamily(name: metric.name, kind: metric.kind, help: metric.help, samples: $0) }
        }
    }
}

extension Histogram {
    /// The histogram's samples in seconds: cumulative `_bucket`s up to `+Inf`, `_sum`, `_count`.
    var samples: [MetricFamily.Sample] {
        var samples: [MetricFamily.Sample] = []
        var cumulative: UInt64 = 0
        for (i, bound) in (Self.bounds.map { "\(Double($0) / 1_000_000)" } + ["+Inf"]).enumerated() {
            cumulative += counts[i]
            samples.append(.init(suffix: "_bucket", labels: [("le", bound)], value: Double(cumulative)))
        }
        samples.append(.init(suffix: "_sum", value: Double(sumMicroseconds) / 1_000_000))
        samples.append(.init(suffix: "_count", value: Double(cumulative)))
        return samples
    }
}
