import GestureEngine
import GestureProtocol
import GestureServer
import TouchInput

/// Turns the engine's events into what the server publishes, through the one mapping to the wire
/// (``WireMapping``: which connection takes what, and `seq`), naming their devices. The input thread
/// fills a batch per loop iteration and hands it to the server in one hop; what no connection
/// wants is left out, so an iteration with nothing wanted costs the server nothing.
struct Publisher {
    private var mapping = WireMapping()
    /// The devices events may name (a list: looked up for every event, a scan of a few beats
    /// hashing).
    private var descriptors: [DeviceDescriptor] = []
    private var batch: [Publication] = []

    /// A device the engine now knows: later events name it, clients get `device` `added`.
    mutating func deviceAdded(
        _ descriptor: DeviceDescriptor, model: TouchscreenModel, vendor: UInt16?, product: UInt16?
    ) {
        descriptors.removeAll { $0.id == descriptor.id }
        descriptors.append(descriptor)
        batch.append(.device(DeviceMessage(event: .added, device: Self.info(descriptor, model, vendor, product))))
    }

    /// The device is gone; call after the events of its removal were added.
    mutating func deviceRemoved(
        _ descriptor: DeviceDescriptor, model: TouchscreenModel, vendor: UInt16?, product: UInt16?
    ) {
        descriptors.removeAll { $0.id == descriptor.id }
        batch.append(.device(DeviceMessage(event: .removed, device: Self.info(descriptor, model, vendor, product))))
    }

    /// The recognizers running from now on, for `hello` (in order with the devices and events).
    mutating func recognizersChanged(_ recognizers: [RecognizerSummary]) {
        batch.append(.recognizers(recognizers))
    }

    /// Adds the engine's events that some connection wants, in order, through the one mapping to
    /// the wire (``WireMapping``, which numbers them). What no connection wants is not even built:
    /// raw touches when nobody takes them, and a gesture no filter passes (a client following pans
    /// does not pay for the pinch's messages).
    mutating func add(_ events: [EngineEvent], wanted interest: Interest) {
        let known = descriptors
        mapping.publications(of: events, deviceOf: { Self.descriptor($0, in: known) }, for: interest, into: &batch)
    }

    /// Adds a publication that is no engine event (a recording's messages), in order.
    mutating func add(_ publication: Publication) {
        batch.append(publication)
    }

    /// Every event names a device the engine was given, and the engine is given devices only
    /// through ``deviceAdded(_:model:vendor:product:)``.
    private static func descriptor(_ device: DeviceID, in descriptors: [DeviceDescriptor]) -> DeviceDescriptor {
        guard let descriptor = descriptors.first(where: { $0.id == device }) else {
            preconditionFailure("engine event for \(device), which the publisher does not know")
        }
        return descriptor
    }

    /// Hands `publish` everything added since the last call, to take or move out of (a server
    /// on this thread writes the batch out during the call, moving each publication out), then
    /// empties the batch. Its storage is kept for the next one when `publish` kept no copy, so a
    /// frame allocates no batch. Returns whether there was a batch.
    @discardableResult
    mutating func flush(_ publish: (inout [Publication]) -> Void) -> Bool {
        guard !batch.isEmpty else { return false }
        publish(&batch)
        batch.removeAll(keepingCapacity: true)
        return true
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
