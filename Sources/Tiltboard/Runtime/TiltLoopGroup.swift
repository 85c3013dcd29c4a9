import Foundation
import Synchronization
import TiltboardCore
import TiltboardDrivers

/// Why loops cannot run together in a `TiltLoopGroup`.
public struct LoopGroupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What stands in the way.
    public enum Kind: Sendable, Equatable {
        /// A group needs at least one loop.
        case noLoops
        /// The loops tick at different rates (in player order); one schedule needs one rate.
        case differentRates([Double])
        /// The loop of `player` (1 for the first) sleeps on its interrupt pin through still
        /// spells, which one schedule for several boards cannot do.
        case wakeOnMotion(player: Int)
    }

    /// What stands in the way.
    public var kind: Kind

    /// The error of `kind`.
    public init(_ kind: Kind) { self.kind = kind }

    /// The structured form for logs.
    public var description: String { "LoopGroupError(\(kind))" }
}

/// Several boards' loops on one thread and one schedule: at every tick each member reads its
/// sensor in turn, in player order (the order given), so the boards' samples are taken together
/// and the transactions of boards sharing a bus never interleave (one thread, one transaction
/// after another).
///
/// Each member is a `TiltLoop` built as for a board of its own (`BoardSession.makeLoop`): its
/// sensor, pipeline, calibration, shake settings and motor stay its own, and so do its observers,
/// its mailbox (`RunningLoop.perform`), its statistics and its `RunningLoop` handle. A member whose
/// sensor fails is ridden out alone by its own recovery, with its own `.sensor` events: while it
/// is lost, each attempt to get it back (and the chip's reset wait when it is configured again)
/// runs on a thread of the member's own, taking part in the clock, so the others keep their ticks;
/// its `.back` event and its mailbox then run on that thread, never at the same time as the
/// member's work on the loop thread. A member
/// that gives up (or is stopped through its handle) ends alone, its motor off and its `wait()`
/// throwing `SensorLostError`, while the others play on. The group ends when it is stopped, its
/// duration has passed, or every member has ended.
///
/// The first member's clock paces the group and its thread policy schedules the group's thread:
/// give every member the same clock.
public final class TiltLoopGroup: @unchecked Sendable {
    /// The loops, in player order.
    public let members: [TiltLoop]
    /// The one schedule every member ticks on.
    package let scheduler: FixedRateScheduler

    /// The group of `members`, in player order. Throws `LoopGroupError` when they do not tick at
    /// one rate, or when one of several wakes on motion.
    public init(_ members: [TiltLoop]) throws {
        guard let first = members.first else { throw LoopGroupError(.noLoops) }
        let rates = members.map(\.configuration.rateHz)
        guard rates.allSatisfy({ $0 == rates[0] }) else { throw LoopGroupError(.differentRates(rates)) }
        if members.count > 1, let i = members.firstIndex(where: { $0.configuration.wakeOnMotion != nil }) {
            throw LoopGroupError(.wakeOnMotion(player: i + 1))
        }
        precondition(Set(members.map(ObjectIdentifier.init)).count == members.count, "a loop can be in a group only once")
        self.members = members
        scheduler = FixedRateScheduler(rateHz: rates[0], clock: first.clock)
    }

    /// Starts every member on one thread and returns the group's handle at once; each member's
    /// handle is in its `members`, in player order. `observers[i]` hear member `i`'s run after
    /// those added with its `observe` (missing ones: none). Sample times count from the group's
    /// start for every member.
    public func start(for duration: Duration? = nil, observers: [[LoopObserver]] = []) -> RunningLoopGroup {
        let scheduler = scheduler
        let members = self.members
        let handles = members.indices.map { i in
            members[i].beginRun(observers: i < observers.count ? observers[i] : [], group: scheduler)
        }
        let group = RunningLoopGroup(members: handles, scheduler: scheduler)
        let durationNs = duration.map { Nanoseconds.span($0) }
        let clock = members[0].clock
        let policy = members[0].configuration.threadPolicy
        let thread = Thread {
            let note = policy.prepare()
            // Per member: ended (its handle holds why).
            var ended = [Bool](repeating: false, count: members.count)
            // Alone, a member is restored on the loop thread, as a loop of its own is.
            var restorers: [MemberRestorer] = []
            clock.takingPart {
                for member in members { member.startWatcher() }
                defer { for member in members { member.watchStop.store(true, ordering: .releasing) } }
                if members.count > 1 { restorers = members.map { MemberRestorer(member: $0, clock: clock) } }
                for member in members { member.recovery.restoresAtOnce = restorers.isEmpty }
                defer {
                    for restorer in restorers { restorer.end() }
                    for member in members { member.recovery.restoresAtOnce = true }
                }
                // Taken last, just before the schedule's own start, as a loop of its own takes it:
                // the duration ends on the schedule's grid, not threads' start-up later.
                let start = clock.nowNanoseconds()
                for member in members { member.recovery.start = start }
                let end = durationNs.map { start &+ $0 }
                var live = members.count
                let finish = { (i: Int, error: Error?) in
                    ended[i] = true
                    live -= 1
                    members[i].watchStop.store(true, ordering: .releasing)
                    if error != nil { members[i].haptics?.cancel() }
                    members[i].endRun(handles[i], note: note, error: error)
                }
                scheduler.run(shouldStop: { live == 0 || end.map { clock.nowNanoseconds() >= $0 } ?? false }) { tick in
                    // By index: a for-in iterator allocates in a debug build, and this runs per tick.
                    var i = 0
                    while i < members.count {
                        defer { i += 1 }
                        if ended[i] { continue }
                        let member = members[i]
                        if !restorers.isEmpty {
                            let restorer = restorers[i]
                            if restorer.isBusy { continue }
                            if let error = restorer.takeFailure() {
                                finish(i, error)
                                continue
                            }
                        }
                        if member.stopRequested.load(ordering: .acquiring) {
                            finish(i, nil)
                            continue
                        }
                        if !restorers.isEmpty && member.recovery.isLost {
                            restorers[i].post(tick)
                            continue
                        }
                        do { try member.step(tick) } catch { finish(i, error) }
                    }
                }
            }
            // A member whose last attempt gave up as the group ended ends with that error.
            for i in members.indices where !ended[i] {
                let error = restorers.isEmpty ? nil : restorers[i].takeFailure()
                if error != nil { members[i].haptics?.cancel() }
                members[i].endRun(handles[i], note: note, error: error)
            }
            group.finish(note: note)
        }
        thread.name = "tiltboard-loop"
        thread.stackSize = 1 << 20
        thread.start()
        return group
    }
}

/// Gets a lost member of a group back on a thread of its own: the loop thread posts a tick, the
/// restorer runs the member's step for it (its mailbox and one attempt of its recovery, the
/// chip's reset wait included) while the loop thread goes on with the others, and skips the member
/// until the attempt is over. The thread takes part in the clock from the group's start to its end,
/// waiting on a condition of the clock between attempts.
final class MemberRestorer: @unchecked Sendable {
    private let member: TiltLoop
    private let condition: ClockCondition
    /// Set by the loop thread when it posts, cleared by the restorer when the attempt is over.
    private let busy = Atomic<Bool>(false)
    /// Set with the attempt's error (the member gave up); the loop thread takes it.
    private let failed = Atomic<Bool>(false)
    // Under `condition`.
    private var job: TickContext?
    private var failure: Error?
    private var ending = false
    private var done = false

    /// Starts the thread and returns once it takes part in `clock` (the caller's thread, taking
    /// part too, holds time still meanwhile).
    init(member: TiltLoop, clock: MonotonicClock) {
        self.member = member
        condition = clock.makeCondition()
        let joined = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            clock.takingPart {
                joined.signal()
                serve()
            }
            condition.lock()
            done = true
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "tiltboard-restore"
        thread.start()
        joined.wait()
    }

    /// True while an attempt posted is under way or its outcome not yet seen.
    var isBusy: Bool { busy.load(ordering: .acquiring) }

    /// Loop thread: the member's step for `tick`, on the restorer's thread.
    func post(_ tick: TickContext) {
        busy.store(true, ordering: .releasing)
        condition.lock()
        job = tick
        condition.broadcast()
        condition.unlock()
    }

    /// Loop thread: the error an attempt ended with (the member gave up), once.
    func takeFailure() -> Error? {
        guard failed.load(ordering: .acquiring) else { return nil }
        condition.lock()
        defer { condition.unlock() }
        failed.store(false, ordering: .releasing)
        let error = failure
        failure = nil
        return error
    }

    /// Loop thread, at the group's end: lets an attempt under way finish, then ends the thread.
    func end() {
        condition.lock()
        ending = true
        condition.broadcast()
        while !done { condition.wait(untilNanoseconds: nil) }
        condition.unlock()
    }

    private func serve() {
        condition.lock()
        while true {
            while job == nil && !ending { condition.wait(untilNanoseconds: nil) }
            guard let tick = job else { break }
            condition.unlock()
            var error: Error?
            do { try member.step(tick) } catch let thrown { error = thrown }
            condition.lock()
            job = nil
            if let error {
                failure = error
                failed.store(true, ordering: .releasing)
            }
            busy.store(false, ordering: .releasing)
            condition.broadcast()
        }
        condition.unlock()
    }
}

/// A started `TiltLoopGroup`: its members' handles, its stop and its end.
public final class RunningLoopGroup: @unchecked Sendable {
    /// Each member's handle, in player order: stop one, wait for its end, read its figures.
    public let members: [RunningLoop]
    let scheduler: FixedRateScheduler
    private let condition = NSCondition()
    // Under `condition`.
    private var ended = false
    private var note: String?

    init(members: [RunningLoop], scheduler: FixedRateScheduler) {
        self.members = members
        self.scheduler = scheduler
    }

    /// Ends every member before the next tick; callable from any thread, any number of times.
    public func stop() {
        for member in members { member.stop() }
        scheduler.stop()
    }

    /// Blocks until every member has ended: the thread policy's note (why real-time scheduling
    /// was refused, say). What ended a member (`SensorLostError`) its handle's `wait()` throws.
    /// Callable from any thread, any number of times.
    @discardableResult
    public func wait() -> String? {
        condition.lock()
        while !ended { condition.wait() }
        let note = note
        condition.unlock()
        return note
    }

    /// True once the group has ended.
    public var isFinished: Bool { condition.withLock { ended } }

    /// The one schedule's figures (ticks, missed, lateness) so far; callable from any thread.
    package var schedule: LoopStatistics { scheduler.statistics }

    func finish(note: String?) {
        condition.withLock {
            self.note = note
            ended = true
        }
        condition.broadcast()
    }
}
