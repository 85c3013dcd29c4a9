import Foundation
import Synchronization
import TiltboardCore

/// A bounded queue of lines in front of a writer thread, so a slow reader never stalls the
/// thread that produces them.
///
/// `push` copies the line into one of `capacity` preallocated slots and returns at once, without
/// allocating; when every slot is taken the oldest waiting line is dropped and counted, since a
/// controller's newest state is worth more than an old one. The writer thread hands each line to
/// `sink`, oldest first, and may block there for as long as the reader takes.
///
/// With `whenFull: .wait` (a loop on a virtual clock, where no deadline is real) nothing is
/// dropped: a full queue makes `push` wait for the reader, and `finish` waits for every line,
/// until `stopWaiting()` turns the queue back into a dropping one (on a stop request).
package final class DropOldestWriter: @unchecked Sendable {
    // @unchecked: the ring and the flags are guarded by `condition`.

    /// What `push` does when every slot is taken.
    package enum FullPolicy: Sendable {
        /// Drop the oldest waiting line and return at once.
        case dropOldest
        /// Wait until the writer has taken a line (or `stopWaiting()` is called).
        case wait
    }

    /// Lines that can wait at once.
    package let capacity: Int
    /// What `push` does when every slot is taken.
    package let whenFull: FullPolicy
    private let sink: (UnsafeRawBufferPointer) -> Void
    private let condition = NSCondition()
    private var slots: [[UInt8]]
    /// Swapped with the slot being written, so the sink runs outside the lock.
    private var spare: [UInt8]
    private var head = 0
    private var count = 0
    private var closing = false
    private var writerDone = false
    /// The writer is inside the sink with a line.
    private var writing = false
    /// `finish` gave up on the line in the sink and counted it as dropped.
    private var abandoned = false
    /// `stopWaiting()` was called: a `.wait` queue drops from now on.
    private var gaveUpWaiting = false
    private let droppedCount = Atomic<UInt64>(0)
    private let writtenCount = Atomic<UInt64>(0)

    /// Starts the writer thread. `lineCapacity`: bytes reserved per slot (longer lines still fit,
    /// at the cost of an allocation).
    package init(capacity: Int = 256, lineCapacity: Int = 512, name: String, whenFull: FullPolicy = .dropOldest,
                sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.whenFull = whenFull
        self.sink = sink
        slots = (0..<capacity).map { _ in
            var slot: [UInt8] = []
            slot.reserveCapacity(lineCapacity)
            return slot
        }
        spare = []
        spare.reserveCapacity(lineCapacity)
        let thread = Thread { [self] in writerMain() }
        thread.name = name
        thread.start()
    }

    /// Lines dropped so far because the reader fell behind (or was still behind at `finish`).
    package var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }

    /// Lines handed to the sink so far.
    package var written: UInt64 { writtenCount.load(ordering: .relaxed) }

    /// Queues a copy of `bytes`; when the queue is full, drops the oldest waiting line
    /// (`.dropOldest`: never blocks on the reader) or waits for a free slot (`.wait`). Ignored
    /// after `finish`.
    package func push(_ bytes: UnsafeRawBufferPointer) {
        condition.lock()
        defer { condition.unlock() }
        if whenFull == .wait {
            while count == capacity && !closing && !gaveUpWaiting { condition.wait() }
        }
        guard !closing else { return }
        if count == capacity {
            head = (head + 1) % capacity
            count -= 1
            droppedCount.add(1, ordering: .relaxed)
        }
        let index = (head + count) % capacity
        slots[index].removeAll(keepingCapacity: true)
        slots[index].append(contentsOf: bytes)
        count += 1
        // Waiters on a `.wait` queue include other pushers and `finish`: wake them all.
        if whenFull == .wait { condition.broadcast() } else { condition.signal() }
    }

    /// A `.wait` queue stops waiting for the reader: a blocked `push` returns, later ones drop
    /// the oldest line, and `finish` waits no longer than its timeout. For a stop request; a
    /// `.dropOldest` queue is unchanged.
    package func stopWaiting() {
        condition.lock()
        gaveUpWaiting = true
        condition.broadcast()
        condition.unlock()
    }

    /// Takes no more lines and waits up to `timeout` for the waiting ones to be written;
    /// those still waiting then are counted as dropped. Returns true when everything was written.
    /// A `.wait` queue waits for as long as the reader takes, unless `stopWaiting()` is called
    /// (before or during the wait), then for up to `timeout` from that moment. A sink
    /// blocked on a reader that never reads is left behind (the process may exit).
    @discardableResult
    package func finish(timeout: Duration) -> Bool {
        let timeoutSeconds = Nanoseconds.seconds(timeout)
        condition.lock()
        defer { condition.unlock() }
        closing = true
        condition.broadcast()
        var deadline: Date? = whenFull == .wait ? nil : Date(timeIntervalSinceNow: timeoutSeconds)
        while !writerDone {
            if deadline == nil && gaveUpWaiting { deadline = Date(timeIntervalSinceNow: timeoutSeconds) }
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                condition.wait()
            }
        }
        let done = writerDone
        // What never reached the reader, including a line stuck in the sink, was dropped (once,
        // however often `finish` gives up on it).
        let stuck = writing && !abandoned
        abandoned = abandoned || writing
        droppedCount.add(UInt64(count + (stuck ? 1 : 0)), ordering: .relaxed)
        count = 0
        return done
    }

    private func writerMain() {
        condition.lock()
        while true {
            while count == 0 && !closing { condition.wait() }
            if count == 0 { break }
            swap(&spare, &slots[head])
            head = (head + 1) % capacity
            count -= 1
            writing = true
            // A `push` waiting for a free slot has one now.
            if whenFull == .wait { condition.broadcast() }
            condition.unlock()
            spare.withUnsafeBytes { sink($0) }
            condition.lock()
            writing = false
            if !abandoned { writtenCount.add(1, ordering: .relaxed) }
        }
        writerDone = true
        condition.broadcast()
        condition.unlock()
    }
}
