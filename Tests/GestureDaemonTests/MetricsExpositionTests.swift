import Foundation
import GestureMetrics
import TestSupport
import Testing

/// The exposition formats (GestureMetrics): what a Prometheus, promtool and node_exporter read.
/// scripts/test-metrics.sh feeds the real ones; these pin the details the two formats differ in.
@Suite("Metrics exposition")
struct MetricsExpositionTests {
    static let snapshot = {
        var s = MetricsSnapshot(
            version: "1.2.3", startTime: 1_700_000_000, time: 1_700_000_100, configurationLoaded: 1_700_000_050.5)
        s.counts[.framesRead] = 42
        s.counts[.touchesRead] = 3
        s.gestures = [
            .init(recognizer: "tap", owner: "configuration", kind: "tap", state: "recognized", count: 2),
            .init(recognizer: "", owner: "client", kind: "pan", state: "began", count: 1),
        ]
        s.failures = [.init(kind: "tap", reason: "moved", count: 5)]
        s.transports = [.init(transport: "unix", connected: 1, accepted: 4, refused: 1)]
        s.lastTouch = 1_700_000_099.25
        s.panels = [.init(label: "pa\"nel\\1\n", grabbed: true, lastTouch: 1_700_000_099.25)]
        return s
    }()

    @Test("Prometheus' text format: a counter's TYPE names it with _total, no # EOF, info as a gauge")
    func prometheusFormat() {
        let text = MetricsExposition.render(Self.snapshot, format: .prometheus)
        #expect(text.contains("# TYPE gestured_frames_read_total counter\ngestured_frames_read_total 42\n"))
        #expect(text.contains("# TYPE gestured_build_info gauge\ngestured_build_info{version=\"1.2.3\"} 1\n"))
        #expect(!text.contains("# EOF"))
        #expect(text.hasSuffix("\n"))
    }

    @Test("OpenMetrics: the family without _total, info typed, # EOF last")
    func openMetricsFormat() {
        let text = MetricsExposition.render(Self.snapshot, format: .openMetrics)
        #expect(text.contains("# TYPE gestured_frames_read counter\ngestured_frames_read_total 42\n"))
        #expect(text.contains("# TYPE gestured_build info\ngestured_build_info{version=\"1.2.3\"} 1\n"))
        #expect(text.hasSuffix("\n# EOF\n"))
    }

    @Test("label values escape backslash, quote and line feed; a client's recognizers have an empty name")
    func labels() {
        let text = MetricsExposition.render(Self.snapshot, format: .prometheus)
        #expect(text.contains(#"gestured_panel_grabbed{panel="pa\"nel\\1\n"} 1"#))
        #expect(
            text.contains(#"gestured_gestures_total{owner="client",recognizer="",kind="pan",state="began"} 1"#))
        #expect(
            text.contains(
                #"gestured_gestures_total{owner="configuration",recognizer="tap",kind="tap",state="recognized"} 2"#))
        #expect(text.contains(#"gestured_panel_last_touch_timestamp_seconds{panel="pa\"nel\\1\n"} 1700000099.25"#))
    }

    @Test("the histogram's buckets are cumulative up to +Inf, its sum in seconds")
    func histogram() {
        var snapshot = Self.snapshot
        for us: Int64 in [10, 60, 60, 150_000, -5] { snapshot.frameToLine.record(microseconds: us) }
        let text = MetricsExposition.render(snapshot, format: .prometheus)
        #expect(text.contains(#"gestured_frame_to_line_latency_seconds_bucket{le="5e-05"} 2"#), "10 and -5 (as 0)")
        #expect(text.contains(#"gestured_frame_to_line_latency_seconds_bucket{le="0.0001"} 4"#))
        #expect(text.contains(#"gestured_frame_to_line_latency_seconds_bucket{le="0.1"} 4"#))
        #expect(text.contains(#"gestured_frame_to_line_latency_seconds_bucket{le="+Inf"} 5"#))
        #expect(text.contains("gestured_frame_to_line_latency_seconds_sum 0.15013\n"))
        #expect(text.contains("gestured_frame_to_line_latency_seconds_count 5\n"))
    }

    @Test(
        "Accept negotiation: OpenMetrics when offered (as Prometheus does), else the text format",
        arguments: [
            (
                "application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,"
                    + "text/plain;version=0.0.4;q=0.3,*/*;q=0.2", MetricsFormat.openMetrics
            ),
            ("text/plain", .prometheus), ("*/*", .prometheus), ("application/openmetrics-text; q=0", .prometheus),
        ])
    func negotiation(accept: String, format: MetricsFormat) {
        #expect(MetricsFormat.negotiated(accept: accept) == format)
        #expect(MetricsFormat.negotiated(accept: nil) == .prometheus)
    }

    @Test("the last touch is left out until there was one")
    func noTouchYet() {
        var snapshot = Self.snapshot
        snapshot.lastTouch = nil
        #expect(!MetricsExposition.render(snapshot, format: .prometheus).contains("gestured_last_touch_timestamp_seconds "))
    }

    @Test("a kiosk's day: wakes by cause, contacts kept from everyone, stuck contacts in all and by panel, screen reads")
    func panelDay() {
        var snapshot = Self.snapshot
        for (counter, value) in [
            (Counter.wakesScreenOff, 3), (.wakesIdle, 2), (.contactsSwallowed, 7), (.contactsIgnored, 11),
            (.stuckContactsEnded, 5), (.stuckContactsRecurring, 4), (.screenReads, 13),
        ] as [(Counter, UInt64)] {
            snapshot.counts[counter] = value
        }
        snapshot.panels.append(.init(label: "event7", grabbed: false, stuckContactsEnded: 5, stuckContactsRecurring: 4))
        let text = MetricsExposition.render(snapshot, format: .prometheus)
        for line in [
            #"gestured_screen_wakes_total{cause="screen-off"} 3"#, #"gestured_screen_wakes_total{cause="idle"} 2"#,
            "gestured_contacts_swallowed_total 7", "gestured_contacts_ignored_total 11",
            "gestured_stuck_contacts_ended_total 5", "gestured_stuck_contacts_recurring_total 4",
            "gestured_screen_state_reads_total 13", #"gestured_panel_stuck_contacts_ended_total{panel="event7"} 5"#,
            #"gestured_panel_stuck_contacts_recurring_total{panel="event7"} 4"#,
        ] {
            #expect(text.contains("\n" + line + "\n"), "\(line)")
        }
        // A panel without a stage has no stuck-contact sample; the totals are there, at 0, without one.
        #expect(!text.contains(#"gestured_panel_stuck_contacts_recurring_total{panel="pa\"nel"#))
        let none = MetricsExposition.render(Self.snapshot, format: .openMetrics)
        #expect(none.contains("# TYPE gestured_stuck_contacts_recurring counter\ngestured_stuck_contacts_recurring_total 0\n"))
    }

    @Test("status carries every counter under its key, a kiosk's day's in panel_day, and reads them back")
    func statusCounters() throws {
        var snapshot = Self.snapshot
        for (i, counter) in Counter.allCases.enumerated() { snapshot.counts[counter] = UInt64(100 + i) }
        let json = try JSONEncoder().encode(snapshot)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let day = try #require(object["panel_day"] as? [String: Any])
        for (i, counter) in Counter.allCases.enumerated() {
            #expect((counter.isPanelDay ? day : object)[counter.rawValue] as? Int == 100 + i, "\(counter.rawValue)")
        }
        #expect(try JSONDecoder().decode(MetricsSnapshot.self, from: json) == snapshot)
    }

    /// docs/FLEET.md's table of metrics, row by row: the names in its first column (a counter's
    /// with `_total`, an info's with `_info`), its type and the label names of its third.
    static func fleetTable() throws -> [(name: String, type: String, labels: [String])] {
        let text = try String(
            contentsOf: SchemaValidator.repositoryRoot.appendingPathComponent("docs/FLEET.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("| metric | type | labels |") })
        func quoted(_ cell: String) -> [String] {
            // The names in backquotes, leaving out what parentheses say about them.
            let bare = cell.replacing(/\([^)]*\)/, with: "")
            return bare.matches(of: /`([^`]+)`/).map { String($0.output.1) }
        }
        var rows: [(String, String, [String])] = []
        for line in lines[(start + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            for name in quoted(cells[1]) { rows.append((name, cells[2], quoted(cells[3]))) }
        }
        return rows
    }

    @Test("docs/FLEET.md's table lists every metric declared, with its type and labels, and nothing else")
    func fleetTableIsTheDeclaredOne() throws {
        let documented = try Self.fleetTable()
        let declared = Metric.all.map { m in
            (name: m.name + (m.kind == .counter ? "_total" : m.kind == .info ? "_info" : ""), type: m.kind.rawValue, labels: m.labels)
        }
        #expect(documented.map(\.name) == declared.map(\.name))
        for d in declared {
            guard let row = documented.first(where: { $0.name == d.name }) else { continue }
            #expect(row.type == d.type && row.labels == d.labels, "\(d.name): FLEET.md says \(row), declared \(d)")
        }
        // And the exposition is the declared list, in its order.
        #expect(Self.snapshot.families.map(\.name) == Metric.all.map(\.name))
    }
}
