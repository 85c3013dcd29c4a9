import Foundation
import XCTest
@testable import TiltboardLinux

/// The bounded queue in front of the output writer: a reader that stalls costs the oldest lines,
/// never a wait in `push`.
final class DropOldestWriterTests: XCTestCase {
    /// A sink that blocks until `open()` and records what reached it.
    private final class GatedSink: @unchecked Sendable {
        private let condition = NSCondition()
        private var isOpen = false
        private(set) var lines: [String] = []
        private(set) var entered = 0

        func take(_ bytes: UnsafeRawBufferPointer) {
            condition.lock()
            entered += 1
            condition.broadcast()
            while !isOpen { condition.wait() }
            lines.append(String(decoding: bytes, as: UTF8.self))
            condition.unlock()
        }

        func open() {
            condition.lock(); isOpen = true; condition.broadcast(); condition.unlock()
        }

        /// Waits (generously) until the writer is inside the sink with its first line.
        func waitUntilEntered() -> Bool {
            condition.lock(); defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: 30)
            while entered == 0 { if !condition.wait(until: deadline) { return false } }
            return true
        }

        var received: [String] { condition.lock(); defer { condition.unlock() }; return lines }
    }

    private func push(_ writer: DropOldestWriter, _ text: String) {
        var text = text
        text.withUTF8 { writer.push(UnsafeRawBufferPointer($0)) }
    }

    func testAStalledReaderCostsTheOldestLinesAndPushNeverWaits() {
        let sink = GatedSink()
        let writer = DropOldestWriter(capacity: 4, name: "test-writer") { sink.take($0) }
        push(writer, "line 0")
        XCTAssertTrue(sink.waitUntilEntered())
        // The writer is stuck on line 0; 100 more pushes return at once and keep the newest 4.
        for i in 1...100 { push(writer, "line \(i)") }
        XCTAssertEqual(writer.dropped, 96)
        sink.open()
        XCTAssertTrue(writer.finish(timeout: .seconds(30)))
        XCTAssertEqual(sink.received, ["line 0", "line 97", "line 98", "line 99", "line 100"])
        XCTAssertEqual(writer.written, 5)
        XCTAssertEqual(writer.dropped, 96)
    }

    /// The line stuck in the sink is dropped once: not again when `finish` gives up a second
    /// time, and not also written when the reader takes it afterwards. Written plus dropped stays
    /// the number of lines pushed.
    func testFinishCountsWhatAReaderNeverTookAsDropped() {
        let sink = GatedSink()
        let writer = DropOldestWriter(capacity: 8, name: "test-writer") { sink.take($0) }
        for i in 0..<5 { push(writer, "line \(i)") }
        XCTAssertTrue(sink.waitUntilEntered())
        XCTAssertFalse(writer.finish(timeout: .milliseconds(50)))
        // Line 0 is stuck in the sink, lines 1…4 were still queued: none reached the reader.
        XCTAssertEqual(writer.dropped, 5)
        XCTAssertEqual(writer.written, 0)
        push(writer, "after finish")
        XCTAssertFalse(writer.finish(timeout: .zero))
        XCTAssertEqual(writer.dropped, 5)
        // The reader takes line 0 after all; the writer thread then ends.
        sink.open()
        XCTAssertTrue(writer.finish(timeout: .seconds(30)))
        XCTAssertEqual(sink.received, ["line 0"])
        XCTAssertEqual(writer.written, 0)
        XCTAssertEqual(writer.dropped, 5)
    }

    func testLinesLongerThanASlotArriveWhole() {
        let sink = GatedSink()
        sink.open()
        let writer = DropOldestWriter(capacity: 2, lineCapacity: 8, name: "test-writer") { sink.take($0) }
        let long = String(repeating: "x", count: 1000)
        push(writer, long)
        XCTAssertTrue(writer.finish(timeout: .seconds(30)))
        XCTAssertEqual(sink.received, [long])
    }
}

/// The same queue with `whenFull: .wait` (a loop on a virtual clock): nothing is dropped; a full
/// queue makes `push` wait for the reader, until `stopWaiting()`.
final class WaitingWriterTests: XCTestCase {
    /// A sink that takes one line per `allow()` and records what reached it.
    private final class MeteredSink: @unchecked Sendable {
        private let condition = NSCondition()
        private var allowed = 0
        private(set) var lines: [String] = []

        func take(_ bytes: UnsafeRawBufferPointer) {
            condition.lock()
            while allowed == 0 { condition.wait() }
            allowed -= 1
            lines.append(String(decoding: bytes, as: UTF8.self))
            condition.broadcast()
            condition.unlock()
        }

        func allow(_ n: Int) {
            condition.lock(); allowed += n; condition.broadcast(); condition.unlock()
        }

        var received: [String] { condition.lock(); defer { condition.unlock() }; return lines }
    }

    /// Counts pushes that returned, from the pushing thread.
    private final class Counter: @unchecked Sendable {
        private let condition = NSCondition()
        private var value = 0
        func increment() { condition.lock(); value += 1; condition.broadcast(); condition.unlock() }
        /// Waits (generously) until the count reaches `target`; the count then.
        func wait(for target: Int) -> Int {
            condition.lock(); defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: 30)
            while value < target { if !condition.wait(until: deadline) { break } }
            return value
        }
        var current: Int { condition.lock(); defer { condition.unlock() }; return value }
    }

    private static func push(_ writer: DropOldestWriter, _ text: String) {
        var text = text
        text.withUTF8 { writer.push(UnsafeRawBufferPointer($0)) }
    }

    func testAFullQueueWaitsForTheReaderAndDropsNothing() {
        let sink = MeteredSink()
        let writer = DropOldestWriter(capacity: 2, name: "test-writer", whenFull: .wait) { sink.take($0) }
        let pushed = Counter()
        let producer = Thread {
            for i in 0..<10 { Self.push(writer, "line \(i)"); pushed.increment() }
        }
        producer.start()
        // One line in the sink, two queued: the fourth push waits.
        XCTAssertEqual(pushed.wait(for: 3), 3)
        XCTAssertEqual(pushed.current, 3, "push went past a full queue")
        XCTAssertEqual(writer.dropped, 0)
        // Each line the reader takes frees one slot for one more push.
        sink.allow(1)
        XCTAssertEqual(pushed.wait(for: 4), 4)
        sink.allow(100)
        XCTAssertEqual(pushed.wait(for: 10), 10)
        XCTAssertTrue(writer.finish(timeout: .zero))
        XCTAssertEqual(sink.received, (0..<10).map { "line \($0)" })
        XCTAssertEqual(writer.written, 10)
        XCTAssertEqual(writer.dropped, 0)
    }

    /// `finish` on a waiting queue ignores its timeout until `stopWaiting()`; then it waits only
    /// that long, and a blocked `push` returns.
    func testStopWaitingReleasesABlockedPushAndFinish() {
        let sink = MeteredSink()
        let writer = DropOldestWriter(capacity: 1, name: "test-writer", whenFull: .wait) { sink.take($0) }
        let pushed = Counter()
        let producer = Thread {
            for i in 0..<3 { Self.push(writer, "line \(i)"); pushed.increment() }
        }
        producer.start()
        XCTAssertEqual(pushed.wait(for: 2), 2)
        XCTAssertEqual(pushed.current, 2)
        writer.stopWaiting()
        // The third push drops the queued line 1 instead of waiting.
        XCTAssertEqual(pushed.wait(for: 3), 3)
        XCTAssertEqual(writer.dropped, 1)
        XCTAssertFalse(writer.finish(timeout: .milliseconds(50)))
        sink.allow(100)
        XCTAssertTrue(writer.finish(timeout: .seconds(30)))
        XCTAssertEqual(sink.received, ["line 0"])
    }
}
