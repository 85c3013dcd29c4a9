import Synchronization

/// A latest-wins hand-over of one fixed-size value from one writer thread to one reader: a triple
/// buffer. The writer fills its own buffer and swaps it with the middle one; the reader swaps the
/// middle one with its own when the writer has left something new there. Neither side ever waits
/// for the other, takes a lock or allocates, and what the reader takes is always the newest
/// complete value (older ones are overwritten, never queued).
///
/// `Value` must be a plain value (no references), so a copy is a copy of its bytes.
package final class LatestSlot<Value>: @unchecked Sendable {
    /// Bits 0–1: the index of the middle buffer; bit 2: it holds a value the reader has not taken.
    private let middle: Atomic<Int>
    private let buffers: UnsafeMutablePointer<Value>
    /// Owned by the writer.
    private var back = 0
    /// Owned by the reader.
    private var front = 2
    private static var fresh: Int { 4 }

    package init(_ initial: Value) {
        buffers = .allocate(capacity: 3)
        buffers.initialize(repeating: initial, count: 3)
        middle = Atomic(1)
    }

    deinit { buffers.deallocate() }

    /// Writer thread: publishes `value`, replacing whatever the reader has not taken yet.
    @inline(__always)
    package func publish(_ value: Value) {
        buffers[back] = value
        // Releasing: the bytes just written are visible to the reader that acquires this index.
        let previous = middle.exchange(back | Self.fresh, ordering: .acquiringAndReleasing)
        back = previous & 3
    }

    /// Reader thread: the newest value published since the last call, or nil when there is none.
    package func take() -> Value? {
        guard middle.load(ordering: .relaxed) & Self.fresh != 0 else { return nil }
        let previous = middle.exchange(front, ordering: .acquiringAndReleasing)
        front = previous & 3
        return buffers[front]
    }
}
