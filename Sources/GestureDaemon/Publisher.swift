import GestureEngine
import GestureProtocol
import GestureServer
import TouchInput

/// Turns the engine's events into what the server publishes: numbers every `gesture` and
/// `touch` (`seq`, one counter for the daemon's life) and names their devices. The input thread
/// fills a batch per loop iteration and hands it to the server in one hop.
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

    /// Adds the engine's events, in order.
    mutating func add(_ events: [EngineEvent]) {
        for event in events {
            let device: DeviceID
            switch event {
            case .gesture(let g): device = g.device
            case .touch(let t): device = t.device
            }
            // Every event names a device the engine was given, and the engine is given devices
            // only through `deviceAdded`.
            guard let descriptor = descriptors[device] else {
                preconditionFailure("engine event for \(device), which the publisher does not know")
            }
            seq += 1
            batch.append(Publication(event, device: descriptor, seq: seq))
        }
    }

    /// Everything added since the last call.
    mutating func take() -> [Publication] {
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
