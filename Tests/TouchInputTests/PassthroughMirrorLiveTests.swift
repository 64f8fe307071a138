import Glibc
import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

extension LiveDeviceTests {
    /// docs/PASSTHROUGH.md against a real kernel, in both boots of the VM (with udevd and by
    /// capabilities): the mirror exists while the panel is grabbed, discovery never takes it, it
    /// carries what is forwarded, and removing it and releasing the grab frees the panel.
    @Test("passthrough: panel grabbed, mirror skipped by discovery, forwarded touches read back; released: all gone")
    func passthroughMirror() throws {
        let discovery = try DeviceDiscovery(logger: Self.logger)
        if let expected = Self.expectedDiscovery { #expect(discovery.mode == expected) }
        let virtual = try VirtualTouchscreen(profile: .kiosk10, name: "gestured virtual passthrough-live")
        let panelNode = try #require(virtual.devnode)
        let panel = try Self.open(virtual)
        defer { panel.close() }
        // Made, then the panel grabbed, as the daemon's passthrough does (PassthroughRouter).
        let mirror = try PassthroughMirror(
            of: panel.model.description, touchProtocol: panel.model.touchProtocol,
            panelPhys: panel.identity.phys ?? panel.descriptor.label)
        try panel.grab()
        let mirrorNode = try #require(mirror.devnode)
        #expect(mirror.name == "gestured virtual passthrough-live (gestured passthrough)")

        // Discovery skips it (hotplug and scan alike), whichever way it decides.
        let added = Self.hotplug(discovery) { if case .added(let d) = $0 { d.devnode == mirrorNode } else { false } }
        guard case .added(let found) = added else {
            Issue.record("no hotplug event for the mirror \(mirrorNode)")
            return
        }
        #expect(found.verdict == .skipped(.passthroughMirror))
        #expect(found.identity.phys?.hasPrefix(MirrorMarks.physPrefix) == true)
        #expect(try discovery.scan().first { $0.devnode == mirrorNode }?.verdict == .skipped(.passthroughMirror))

        // The panel is ours alone.
        let other = try EvdevHandle(path: panelNode)
        #expect(throws: InputError(call: "libevdev_grab", path: panelNode, errno: EBUSY)) { try other.grab(true) }

        // What the panel reports, forwarded as unclaimed views, is what a reader of the mirror gets.
        let reader = try TouchDevice(path: mirrorNode, id: DeviceID(9), logger: Self.logger)
        defer { reader.close() }
        var sent: [TouchFrame] = []
        var outcomes: [TouchDevice.ReadOutcome] = []
        for step in 0...10 {
            let contacts =
                step < 10
                ? [SimulatedContact(id: 1, position: SurfacePoint(x: 0.2 + 0.05 * Double(step), y: 0.4))] : []
            try virtual.send(contacts)
            var frames: [TouchFrame] = []
            Self.read(panel, into: &frames, outcomes: &outcomes) { !$0.isEmpty }
            for frame in frames {
                for touch in frame.touches where touch.phase != .stationary {
                    mirror.add(touch, at: frame.time)
                }
            }
            try mirror.flush()
            sent += frames
        }
        var mirrored: [TouchFrame] = []
        Self.read(reader, into: &mirrored, outcomes: &outcomes) { $0.count >= sent.count }
        func values(_ frames: [TouchFrame]) -> [String] {
            frames.flatMap(\.touches).filter { $0.phase != .stationary }.map {
                "\($0.phase) \(String(describing: $0.raw))"
            }
        }
        #expect(values(mirrored) == values(sent) && sent.count == 11)
        #expect(outcomes.isEmpty)

        // Removed and released: the mirror goes away, the panel can be grabbed again.
        mirror.remove()
        try panel.grab(false)
        #expect(!panel.isGrabbed)
        let removed = Self.hotplug(discovery) { $0 == .removed(devnode: mirrorNode) }
        #expect(removed != nil)
        try other.grab(true)
        try other.grab(false)
    }
}
