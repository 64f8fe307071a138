import CMtdev
import EvdevValues
import TouchValues

/// The wrapper around libmtdev: every mtdev call of the module is in this file.
///
/// Converts multitouch protocol A (anonymous contacts separated by SYN_MT_REPORT) into protocol B
/// slot events with tracking ids. Used through mtdev's plumbing API so the same converter serves
/// live devices (events read by libevdev) and recordings. Owns its `struct mtdev` exactly once.
final class MtdevConverter {
    private let device: UnsafeMutablePointer<mtdev>

    /// A converter for a device with the axes of `description`; nil when mtdev cannot allocate.
    init?(description: DeviceCapabilities) {
        guard let device = mtdev_new() else { return nil }
        guard mtdev_init(device) == 0 else {
            mtdev_delete(device)
            return nil
        }
        self.device = device
        for code in EventCode.absMTTouchMajor...EventCode.absMTPressure {
            guard let info = description.absInfo[code] else { continue }
            mtdev_set_mt_event(device, Int32(code), 1)
            mtdev_set_abs_minimum(device, Int32(code), info.minimum)
            mtdev_set_abs_maximum(device, Int32(code), info.maximum)
            mtdev_set_abs_fuzz(device, Int32(code), info.fuzz)
            mtdev_set_abs_resolution(device, Int32(code), info.resolution)
        }
        // mtdev_configure would set these from the fd; the plumbing API leaves them to us.
        device.pointee.caps.has_mtdata = 1
        if description.absInfo[EventCode.absMTTrackingID] == nil {
            mtdev_set_abs_minimum(device, Int32(EventCode.absMTTrackingID), 0)
            mtdev_set_abs_maximum(device, Int32(EventCode.absMTTrackingID), Int32(UInt16.max))
        }
    }

    deinit { mtdev_close_delete(device) }

    /// Feeds one input event.
    func put(_ event: InputEvent) {
        var raw = input_event()
        raw.time.tv_sec = Int(event.time.microseconds / 1_000_000)
        raw.time.tv_usec = Int(event.time.microseconds % 1_000_000)
        raw.type = event.type
        raw.code = event.code
        raw.value = event.value
        mtdev_put_event(device, &raw)
    }

    /// Takes the next converted event, or nil when none is queued.
    func next() -> InputEvent? {
        guard mtdev_empty(device) == 0 else { return nil }
        var raw = input_event()
        mtdev_get_event(device, &raw)
        let micros = Int64(raw.time.tv_sec) * 1_000_000 + Int64(raw.time.tv_usec)
        return InputEvent(time: Timestamp(microseconds: micros), type: raw.type, code: raw.code, value: raw.value)
    }
}
