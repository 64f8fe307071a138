/// The translation of a set of touches whose membership changes, without jumps: when a finger
/// lands or lifts, the centroid jumps, so the tracker folds the movement so far into an offset
/// and restarts from the new centroid (what UIPanGestureRecognizer does with extra fingers).
struct CentroidTracker {
    private var mask: UInt64 = 0
    private var base = SurfacePoint(x: 0, y: 0)
    private var offset = SurfaceVector.zero
    private(set) var translation = SurfaceVector.zero
    private(set) var centroid = SurfacePoint(x: 0, y: 0)

    /// Starts tracking `mask` from where its touches are now.
    mutating func start(_ mask: UInt64, _ touches: borrowing TouchTable) {
        self.mask = mask
        base = touches.centroid(mask)
        centroid = base
        offset = .zero
        translation = .zero
    }

    /// Updates ``translation`` and ``centroid`` for the touches in `mask` (empty: unchanged).
    mutating func update(_ mask: UInt64, _ touches: borrowing TouchTable) {
        guard mask != 0 else { return }
        if mask != self.mask {
            // Movement of the old set up to now (lifted touches keep their last position), then
            // restart from the new set.
            if self.mask != 0 { offset = offset + (touches.centroid(self.mask) - base) }
            self.mask = mask
            base = touches.centroid(mask)
        }
        centroid = touches.centroid(mask)
        translation = offset + (centroid - base)
    }

    mutating func reset() { self = CentroidTracker() }
}
