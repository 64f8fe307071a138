import GestureEngine
import Logging
import TouchInput
import VirtualDevices

/// The passthrough mirrors of the open touchscreens (docs/PASSTHROUGH.md), owned by the input
/// thread: one is made when a panel whose configuration says `passthrough: true` opens, gets the
/// engine's view events of its panel synchronously, before the batch goes to the server, and is
/// released when the panel goes (removal, stop, a reload that reopens the devices).
///
/// A mirror that cannot be made or written never takes the daemon down: it is released, the
/// panel ungrabbed (so the application reads the panel itself again) and the reason logged.
struct PassthroughRouter {
    /// A grabbed panel and its mirror.
    private struct Passthrough {
        let panel: TouchDevice
        let mirror: PassthroughMirror
    }

    private var mirrors: [DeviceID: Passthrough] = [:]
    /// Mirrors that got events since their last flush.
    private var written: [DeviceID] = []

    /// Whether some panel is mirrored (its mirror needs every view event of its touches).
    var isActive: Bool { !mirrors.isEmpty }
    /// Frames written to the mirrors (one per mirror a flush wrote to).
    private(set) var framesWritten: UInt64 = 0

    /// Whether the panel is grabbed and mirrored.
    func mirrors(_ device: DeviceID) -> Bool { mirrors[device] != nil }

    /// The event node of the panel's mirror, while it is grabbed (nil when udev has not named it).
    func mirrorNode(_ device: DeviceID) -> String? { mirrors[device]?.mirror.devnode }

    /// Makes the mirror of `device`, then grabs `device`, or logs why not (the device is then
    /// used without passthrough; a mirror made before a refused grab is removed again).
    mutating func attach(_ device: TouchDevice, logger: Logger) {
        let label = device.descriptor.label
        let mirror: PassthroughMirror
        do {
            mirror = try PassthroughMirror(
                of: device.model.description, touchProtocol: device.model.touchProtocol,
                panelPhys: device.identity.phys ?? label)
            do {
                try device.grab()
            } catch {
                mirror.remove()
                throw error
            }
        } catch {
            logger.error(
                "passthrough unavailable: other programs still read the panel",
                metadata: ["device": "\(label)", "reason": "\(error)"])
            return
        }
        mirrors[device.id] = Passthrough(panel: device, mirror: mirror)
        logger.notice(
            "passthrough: panel grabbed, unclaimed touches go to its mirror",
            metadata: [
                "device": "\(label)", "mirror": "\(mirror.devnode ?? "?")", "mirror-name": "\(mirror.name)",
            ])
        if !mirror.omittedAxes.isEmpty {
            logger.info(
                "passthrough: the mirror leaves out axes gestured does not follow",
                metadata: ["device": "\(label)", "axes": "\(mirror.omittedAxes.joined(separator: ","))"])
        }
        if case .singleTouch = device.model.touchProtocol {
            logger.warning(
                "passthrough of a single-touch panel: a claimed touch can only be lifted on the mirror, not cancelled; use delays-touches-began to keep claimed touches from the application",
                metadata: ["device": "\(label)"])
        }
    }

    /// Sends the view events of mirrored panels to their mirrors, one write per mirror.
    mutating func forward(_ events: [EngineEvent], logger: Logger) {
        guard !mirrors.isEmpty else { return }
        for event in events {
            guard case .touch(let touch) = event, let mirror = mirrors[touch.device]?.mirror else { continue }
            mirror.add(touch.touch, at: touch.time)
            if !written.contains(touch.device) { written.append(touch.device) }
        }
        for id in written {
            guard let passthrough = mirrors[id] else { continue }
            do {
                try passthrough.mirror.flush()
                framesWritten &+= 1
            } catch {
                logger.error(
                    "passthrough: the mirror cannot be written; released, the panel is no longer grabbed",
                    metadata: ["device": "\(passthrough.panel.descriptor.label)", "reason": "\(error)"])
                detach(id, logger: logger)
            }
        }
        written.removeAll(keepingCapacity: true)
    }

    /// Removes the mirror of `id`, then releases its panel's grab (if the panel is still open;
    /// closing it releases the grab too), if it has one.
    mutating func detach(_ id: DeviceID, logger: Logger) {
        guard let (panel, mirror) = mirrors.removeValue(forKey: id).map({ ($0.panel, $0.mirror) }) else { return }
        let label = panel.descriptor.label
        mirror.remove()
        do {
            if panel.isOpen && panel.isGrabbed { try panel.grab(false) }
        } catch {
            logger.error(
                "passthrough: the panel's grab could not be released",
                metadata: ["device": "\(label)", "reason": "\(error)"])
        }
        let lost = mirror.diagnostics
        logger.info(
            "passthrough: mirror removed",
            metadata: [
                "device": "\(label)", "dropped-touches": "\(lost.droppedTouches)",
                "untracked-events": "\(lost.untrackedEvents)", "cancels-sent-as-lifts": "\(lost.cancelsSentAsLifts)",
            ])
    }
}
