import Foundation
import Synchronization
import TiltboardCore

/// A clock for simulated boards that runs as fast as the work allows, the same on every run.
///
/// Discrete-event time: the threads that take part (`takingPart`) run at one instant, and time
/// jumps to the earliest pending deadline only when every one of them waits on the clock (in
/// `sleep`, or in a wait on a condition from `makeCondition()`). Waking a waiter through such a
/// condition counts it as running at once, so time cannot move on before it has run.
///
/// Threads that do not take part may wait on the clock too; they never hold time back. With no
/// taking-part thread running, a sleep returns at once (like `ManualClock`). A taking-part thread
/// blocked on anything but the clock (a lock, a semaphore, a read) holds time still until it
/// returns, so it must not wait for another taking-part thread that way.
public final class VirtualClock: MonotonicClock, @unchecked Sendable {
    // @unchecked: everything mutable is guarded by `monitor`, except `now`, which is atomic
    // (read without the lock, written only under it).
    private let now: Atomic<UInt64>
    private let monitor = NSCondition()
    // Guarded by `monitor`.
    private var running = 0
    private var waiters: [Waiter] = []
    private let memberKey: String

    private final class Waiter {
        let deadline: UInt64?
        let condition: ObjectIdentifier?
        let member: Bool
        var woken = false
        init(deadline: UInt64?, condition: ObjectIdentifier?, member: Bool) {
            self.deadline = deadline; self.condition = condition; self.member = member
        }
    }

    /// A virtual clock standing at `startNanoseconds`.
    public init(startNanoseconds: UInt64 = 0) {
        now = Atomic(startNanoseconds)
        memberKey = "tiltboard.virtual-clock." + UUID().uuidString
    }

    /// The clock's current time in nanoseconds.
    public func nowNanoseconds() -> UInt64 { now.load(ordering: .acquiring) }

    public func sleep(untilNanoseconds deadline: UInt64) {
        monitor.lock()
        if deadline > nowNanoseconds() { wait(deadline: deadline, condition: nil) }
        monitor.unlock()
    }

    public func makeCondition() -> ClockCondition { Condition(clock: self) }

    public func takingPart<R>(_ body: () throws -> R) rethrows -> R {
        let thread = Thread.current.threadDictionary
        let depth = (thread[memberKey] as? Int) ?? 0
        thread[memberKey] = depth + 1
        if depth == 0 {
            monitor.lock()
            running += 1
            monitor.unlock()
        }
        defer {
            thread[memberKey] = depth == 0 ? nil : depth
            if depth == 0 {
                monitor.lock()
                running -= 1
                advanceIfIdle()
                monitor.unlock()
            }
        }
        return try body()
    }

    /// Waits, without moving time, until every other taking-part thread waits on the clock: what
    /// is due at this instant has then run everywhere. Threads woken at the same instant run in
    /// any order; a thread that reads state another one changes at that instant (the motor going
    /// off on the tick a line reports it) calls this first, so it sees the same state on every
    /// run. Must not be called while holding anything another taking-part thread waits for.
    public func settle() {
        monitor.lock()
        let own = callerTakesPart ? 1 : 0
        while running > own { monitor.wait() }
        monitor.unlock()
    }

    /// Threads taking part that are not waiting on the clock; for tests.
    package var runningThreads: Int {
        monitor.lock(); defer { monitor.unlock() }
        return running
    }

    /// Threads waiting on the clock (in a sleep or a condition); for tests.
    package var waitingThreads: Int {
        monitor.lock(); defer { monitor.unlock() }
        return waiters.count
    }

    private var callerTakesPart: Bool { Thread.current.threadDictionary[memberKey] != nil }

    /// With `monitor` held: waits until `deadline` or a wake-up through `condition`.
    private func wait(deadline: UInt64?, condition: ObjectIdentifier?) {
        let waiter = Waiter(deadline: deadline, condition: condition, member: callerTakesPart)
        waiters.append(waiter)
        if waiter.member { running -= 1 }
        advanceIfIdle()
        while !waiter.woken { monitor.wait() }
        waiters.removeAll { $0 === waiter }
    }

    /// With `monitor` held: wakes the waiters on `condition` (the first only, unless `all`).
    private func wake(_ condition: ObjectIdentifier, all: Bool) {
        for waiter in waiters where !waiter.woken && waiter.condition == condition {
            markWoken(waiter)
            if !all { break }
        }
        monitor.broadcast()
    }

    /// With `monitor` held: a woken taking-part thread counts as running from this moment on.
    private func markWoken(_ waiter: Waiter) {
        waiter.woken = true
        if waiter.member { running += 1 }
    }

    /// With `monitor` held: while no taking-part thread runs, moves time to the earliest pending
    /// deadline and wakes everyone waiting for it.
    private func advanceIfIdle() {
        while running == 0 {
            guard let next = waiters.lazy.filter({ !$0.woken }).compactMap(\.deadline).min() else { break }
            if next > nowNanoseconds() { now.store(next, ordering: .releasing) }
            for waiter in waiters where !waiter.woken && waiter.deadline.map({ $0 <= next }) == true {
                markWoken(waiter)
            }
        }
        monitor.broadcast()
    }

    /// A condition sharing the clock's lock, so a wake-up and a move of time never interleave.
    private final class Condition: ClockCondition, @unchecked Sendable {
        private let clock: VirtualClock
        init(clock: VirtualClock) { self.clock = clock }

        func lock() { clock.monitor.lock() }
        func unlock() { clock.monitor.unlock() }
        func signal() { clock.wake(ObjectIdentifier(self), all: false) }
        func broadcast() { clock.wake(ObjectIdentifier(self), all: true) }

        func wait(untilNanoseconds deadline: UInt64?) {
            if let deadline, deadline <= clock.nowNanoseconds() { return }
            clock.wait(deadline: deadline, condition: ObjectIdentifier(self))
        }
    }
}
