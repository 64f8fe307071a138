import GestureEngine
import GestureProtocol
import GestureServer
import TouchInput

/// Turns the engine's events into what the server publishes: numbers every `gesture` and
/// `touch` (`seq`, one counter for the daemon's life) and names their devices. The input thread
/// fills a batch per loop iteration and hands it to the server in one hop; what no connection
/// wants is left out, so an iteration with nothing wanted costs the server nothing.
struct Publisher {
    private(set) var seq: UInt64 = 0
    private var descriptors: [DeviceID: DeviceDescriptor] = [:]
    private var batch: [Publication] = []

    /// A device the engine now knows: later events name it, clients get `device` `added`.
    mutating func deviceAdded(
        _ descriptor: DeviceDescriptor, model: TouchscreenModel, vendor: UInt16?, product: UInt16?
    ) {
        descriptors[descriptor.id] = descriptor
        batch.append(.device(DeviceMessage(event: .added, device: Self.info(descriptor, model, vendor, product))))
    }

    /// The device is gone; call after the events of its removal were added.
    mutating func deviceRemoved(
        _ descriptor: DeviceDescriptor, model: TouchscreenModel, vendor: UInt16?, product: UInt16?
    ) {
        descriptors[descriptor.id] = nil
        batch.append(.device(DeviceMessage(event: .removed, device: Self.info(descriptor, model, vendor, product))))
    }

    /// The recognizers running from now on, for `hello` (in order with the devices and events).
    mutating func recognizersChanged(_ recognizers: [RecognizerSummary]) {
        batch.append(.recognizers(recognizers))
    }

    /// Adds the engine's events that some connection wants, in order (all are numbered).
    mutating func add(_ events: [EngineEvent], wanted interest: Interest) {
        for event in events {
            // Most connections take no raw touches: those messages are not even built.
            let device: DeviceID
            switch event {
            case .gesture(let g):
                seq += 1
                guard interest.takesGestures else { continue }
                device = g.device
            case .touch(let t):
                seq += 1
                guard interest.takesTouches else { continue }
                device = t.device
            case .explanation(let e):
                // Not numbered: a stream with explanations numbers the rest as one without.
                guard interest.takesExplanations else { continue }
                device = e.device
            }
            // Every event names a device the engine was given, and the engine is given devices
            // only through `deviceAdded`.
            guard let descriptor = descriptors[device] else {
                preconditionFailure("engine event for \(device), which the publisher does not know")
            }
            let publication = Publication(event, device: descriptor, seq: seq)
            if interest.wants(publication) { batch.append(publication) }
        }
    }

    /// Everything added since the last call.
    mutating func take() -> [Publication] {
        // An empty batch is left alone: emptying a batch the server still holds allocates.
        guard !batch.isEmpty else { return [] }
        defer { batch.removeAll(keepingCapacity: true) }
        return batch
    }

    private static func info(
        _ descriptor: DeviceDescriptor, _ model: TouchscreenModel, _ vendor: UInt16?, _ product: UInt16?
    ) -> DeviceInfo {
        let contacts =
            switch model.touchProtocol {
            case .slots(let count): count
            case .protocolA: model.description.slotCount ?? 0
            case .singleTouch: 1
            }
        return DeviceInfo(descriptor, vendor: vendor.map(Int.init), product: product.map(Int.init), slots: contacts)
    }
}
