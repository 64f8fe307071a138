import TouchValues

/// A caller-owned list of frames that keeps its storage, including every frame's touch array,
/// between uses: ``removeAll()`` only resets the count, so steady-state reading and replay
/// allocate nothing per frame (a plain `[TouchFrame]` would free each frame's touches on clear).
///
/// Read it like an array (`for frame in buffer`, `buffer[i]`); the frames stay valid until the
/// next `removeAll()` and append.
public struct TouchFrameBuffer: RandomAccessCollection, Sendable {
    private var storage: [TouchFrame] = []
    /// The number of frames currently held.
    public private(set) var count = 0

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public subscript(position: Int) -> TouchFrame {
        precondition(position < count, "frame index out of range")
        return storage[position]
    }

    /// The times of the first and the last frame held, nil when there is none: read in place,
    /// where `first` and `last` copy a frame out (retaining and releasing its touch list).
    public var times: (first: Timestamp, last: Timestamp)? {
        count == 0 ? nil : (storage[0].time, storage[count - 1].time)
    }

    /// Forgets the frames but keeps their storage for the next ones.
    public mutating func removeAll() { count = 0 }

    /// Appends a copy of `frame` (used by tests and by sources that build frames themselves).
    public mutating func append(_ frame: TouchFrame) {
        startFrame(device: frame.device, time: frame.time)
        storage[count - 1].touches.append(contentsOf: frame.touches)
    }

    /// Starts a new, empty frame at the end, reusing old storage when there is some.
    mutating func startFrame(device: DeviceID, time: Timestamp) {
        if count < storage.count {
            storage[count].device = device
            storage[count].time = time
            storage[count].touches.removeAll(keepingCapacity: true)
        } else {
            var touches: [Touch] = []
            touches.reserveCapacity(10)
            storage.append(TouchFrame(device: device, time: time, touches: touches))
        }
        count += 1
    }

    /// Adds a touch to the frame started last.
    mutating func appendTouch(_ touch: Touch) {
        storage[count - 1].touches.append(touch)
    }

    /// Starts a new frame at the end and hands `fill` its touch list, empty, to append to: one
    /// access to the frames for all the touches, not one for each.
    mutating func appendFrame(device: DeviceID, time: Timestamp, _ fill: (inout [Touch]) -> Void) {
        startFrame(device: device, time: time)
        let last = count - 1
        storage.withUnsafeMutableBufferPointer { fill(&$0[last].touches) }
    }
}
