extension MetricsSnapshot {
    /// Every metric of the snapshot, in the order the exposition lists them (docs/FLEET.md,
    /// "Metrics", has the same list). Label sets are bounded: recognizers by the configuration's
    /// names (a client's recognizers by kind only), failures by the engine's checks, transports
    /// and results by fixed words, panels by the devices open.
    public var families: [MetricFamily] {
        typealias S = MetricFamily.Sample
        func counter(_ name: String, _ help: String, _ value: UInt64) -> MetricFamily {
            MetricFamily(name: name, kind: .counter, help: help, samples: [S(suffix: "_total", value: Double(value))])
        }
        func gauge(_ name: String, _ help: String, _ value: Double) -> MetricFamily {
            MetricFamily(name: name, kind: .gauge, help: help, samples: [S(value: value)])
        }
        func byTransport(_ name: String, _ help: String, _ value: (TransportCounts) -> UInt64) -> MetricFamily {
            MetricFamily(
                name: name, kind: .counter, help: help,
                samples: transports.map { S(suffix: "_total", labels: [("transport", $0.transport)], value: Double(value($0))) })
        }
        var families: [MetricFamily] = [
            MetricFamily(
                name: "gestured_build", kind: .info, help: "The daemon's version.",
                samples: [S(suffix: "_info", labels: [("version", version)], value: 1)]),
            gauge("gestured_start_time_seconds", "When the daemon started, in Unix time.", startTime),
            counter("gestured_frames_read", "Touch frames read from the panels (or a recording).", framesRead),
            counter("gestured_touches_read", "Contacts that landed on the panels.", touchesRead),
            counter("gestured_mirror_frames_written", "Frames written to passthrough mirror devices.", mirrorFrames),
            MetricFamily(
                name: "gestured_gestures", kind: .counter,
                help: "Gesture reports by recognizer and state (a client's recognizers by kind, with an empty name).",
                samples: gestures.map {
                    S(
                        suffix: "_total",
                        labels: [("owner", $0.owner), ("recognizer", $0.recognizer), ("kind", $0.kind), ("state", $0.state)],
                        value: Double($0.count))
                }),
            MetricFamily(
                name: "gestured_recognizer_failures", kind: .counter,
                help: "Recognizers that failed, by kind and reason (a check of the recognizer, or arbitration).",
                samples: failures.map {
                    S(suffix: "_total", labels: [("kind", $0.kind), ("reason", $0.reason)], value: Double($0.count))
                }),
            MetricFamily(
                name: "gestured_clients_connected", kind: .gauge, help: "Clients connected now, by transport.",
                samples: transports.map { S(labels: [("transport", $0.transport)], value: Double($0.connected)) }),
            byTransport("gestured_clients_accepted", "Client connections admitted, by transport.") { $0.accepted },
            byTransport("gestured_clients_refused", "Client connections refused (limits, stopping), by transport.") {
                $0.refused
            },
            byTransport(
                "gestured_messages_dropped", "Updates left out for clients that read too slowly (coalesced), by transport."
            ) { $0.messagesDropped },
            byTransport(
                "gestured_clients_overflowed", "Clients disconnected because their queue overflowed, by transport."
            ) { $0.overflowed },
            MetricFamily(
                name: "gestured_definitions", kind: .counter,
                help: "Client definition changes the engine accepted and refused.",
                samples: [
                    S(suffix: "_total", labels: [("result", "accepted")], value: Double(definitionsAccepted)),
                    S(suffix: "_total", labels: [("result", "refused")], value: Double(definitionsRefused)),
                ]),
            MetricFamily(
                name: "gestured_reloads", kind: .counter,
                help: "Configuration reloads that replaced the configuration, and those that failed and kept it.",
                samples: [
                    S(suffix: "_total", labels: [("result", "succeeded")], value: Double(reloadsSucceeded)),
                    S(suffix: "_total", labels: [("result", "failed")], value: Double(reloadsFailed)),
                ]),
            MetricFamily(
                name: "gestured_screen_wakes", kind: .counter,
                help: "Touches that woke a panel's screen and reached nobody, by cause (screen-off, idle).",
                samples: [
                    S(suffix: "_total", labels: [("cause", "screen-off")], value: Double(panelDay.wakesScreenOff)),
                    S(suffix: "_total", labels: [("cause", "idle")], value: Double(panelDay.wakesIdle)),
                ]),
            counter(
                "gestured_contacts_swallowed", "Contacts swallowed by wakes: the waking touch and those landing with it.",
                panelDay.contactsSwallowed),
            counter("gestured_contacts_ignored", "Contacts that landed in a dead zone (devices[].ignore).", panelDay.contactsIgnored),
            counter(
                "gestured_stuck_contacts_ended", "Contacts held still past the stuck-contact limit and ended.",
                panelDay.stuckContactsEnded),
            counter(
                "gestured_stuck_contacts_recurring",
                "Stuck contacts ended where one was ended before on the same panel: a panel failing there.",
                panelDay.stuckContactsRecurring),
            counter(
                "gestured_screen_state_reads", "Reads of a screen's state file, at a landing after a quiet moment.",
                panelDay.screenReads),
            gauge(
                "gestured_configuration_loaded_timestamp_seconds",
                "When the running configuration was loaded (at start or by the last good reload), in Unix time.",
                configurationLoaded),
        ]
        if let lastTouch {
            families.append(
                gauge("gestured_last_touch_timestamp_seconds", "When a contact last landed or moved on any panel, in Unix time.", lastTouch))
        }
        families += [
            MetricFamily(
                name: "gestured_panel_present", kind: .gauge, help: "The panels open now, by label (always 1).",
                samples: panels.map { S(labels: [("panel", $0.label)], value: 1) }),
            MetricFamily(
                name: "gestured_panel_grabbed", kind: .gauge,
                help: "Whether the panel is grabbed with a passthrough mirror, by label.",
                samples: panels.map { S(labels: [("panel", $0.label)], value: $0.grabbed ? 1 : 0) }),
            MetricFamily(
                name: "gestured_panel_last_touch_timestamp_seconds", kind: .gauge,
                help: "When a contact last landed or moved on the panel, in Unix time.",
                samples: panels.compactMap { panel in panel.lastTouch.map { S(labels: [("panel", panel.label)], value: $0) } }),
            MetricFamily(
                name: "gestured_panel_stuck_contacts_ended", kind: .counter,
                help: "Contacts held still past the stuck-contact limit and ended, on the panel since it was added (panels with a stage).",
                samples: panels.compactMap { panel in
                    panel.stuckContactsEnded.map { S(suffix: "_total", labels: [("panel", panel.label)], value: Double($0)) }
                }),
            MetricFamily(
                name: "gestured_panel_stuck_contacts_recurring", kind: .counter,
                help: "Stuck contacts ended where one was ended before, on the panel since it was added (panels with a stage).",
                samples: panels.compactMap { panel in
                    panel.stuckContactsRecurring.map { S(suffix: "_total", labels: [("panel", panel.label)], value: Double($0)) }
                }),
            MetricFamily(
                name: "gestured_input_thread_cpu_seconds", kind: .counter,
                help: "CPU time the input thread has used (reading panels, the engine, writing lines).",
                samples: [S(suffix: "_total", value: inputThreadCPUSeconds)]),
            frameToLine.family(
                name: "gestured_frame_to_line_latency_seconds",
                help: "From a frame's kernel time to its lines written to the clients (one publication in 8)."),
        ]
        return families
    }
}

extension Histogram {
    /// The histogram as a family in seconds: cumulative `_bucket`s up to `+Inf`, `_sum`, `_count`.
    func family(name: String, help: String) -> MetricFamily {
        var samples: [MetricFamily.Sample] = []
        var cumulative: UInt64 = 0
        for (i, bound) in Self.bounds.enumerated() {
            cumulative += counts[i]
            samples.append(.init(suffix: "_bucket", labels: [("le", seconds(bound))], value: Double(cumulative)))
        }
        cumulative += counts[Self.bounds.count]
        samples.append(.init(suffix: "_bucket", labels: [("le", "+Inf")], value: Double(cumulative)))
        samples.append(.init(suffix: "_sum", value: Double(sumMicroseconds) / 1_000_000))
        samples.append(.init(suffix: "_count", value: Double(cumulative)))
        return MetricFamily(name: name, kind: .histogram, help: help, samples: samples)
    }

    /// A bound in seconds as a label: `5e-05`, `0.001`, `0.1`.
    private func seconds(_ microseconds: Int64) -> String {
        "\(Double(microseconds) / 1_000_000)"
    }
}
