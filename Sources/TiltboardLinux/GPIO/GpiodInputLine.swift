import Synchronization
import TiltboardCore
import TiltboardDrivers

/// A GPIO input watched for rising edges, e.g. a sensor's data-ready interrupt pin (libgpiod 1.6 or 2.x).
///
/// Edges are queued by the kernel between waits, so none is lost while a sample is being read.
public final class GpiodInputLine: Sendable {
    /// `pinctrl-bcm2711 line 4 (GPIO4)`.
    public let name: String
    /// The chip the line was found on.
    public let chip: GPIOChipInfo
    private let handle: Mutex<Gpiod.Line?>

    /// Requests the line as an input with rising-edge events (inactive → active when `activeLow`).
    /// - Throws: `GPIOError` (.chipNotFound, .lineNotFound, .lineBusy, .permissionDenied, .io).
    public convenience init(chip: String, line: GPIOLineID, activeLow: Bool = false, consumer: String = "tiltboard") throws {
        try self.init(chip: chip, line: line, activeLow: activeLow, consumer: consumer, deviceDirectory: "/dev")
    }

    init(chip spec: String, line id: GPIOLineID, activeLow: Bool, consumer: String, deviceDirectory: String) throws {
        let found = try GPIOLineFinder.find(chip: spec, line: id, directory: deviceDirectory)
        let line: Gpiod.Line
        switch Gpiod.requestRisingEdges(path: found.info.path, offset: found.offset, consumer: consumer, activeLow: activeLow) {
        case let .success(requested): line = requested
        case let .failure(error): throw GPIOLineFinder.requestError(error, found, action: .requestEdgeEvents)
        }
        self.name = found.displayName
        self.chip = found.info
        self.handle = Mutex(line)
    }

    /// An eventfd the edge wait below also polls.
    public func makeWakeStop() throws -> WakeStop { try EventFDWakeStop() }

    /// poll(2) on the line's event descriptor and `stop`'s eventfd (an `EventFDWakeStop`; another
    /// kind is only looked at when the wait ends otherwise), with no timeout but `deadline` on
    /// `clock` (CLOCK_MONOTONIC for a real board, whose loop runs on `LinuxMonotonicClock`). A
    /// signal (EINTR) resumes the wait: a stop arrives through the eventfd. Blocks `release()` meanwhile.
    public func waitForEdge(until deadline: UInt64?, on clock: MonotonicClock, stop: WakeStop) throws -> EdgeWait {
        let stopDescriptor = (stop as? EventFDWakeStop)?.descriptor ?? -1
        let result: Result<EdgeWait, GPIOError> = handle.withLock { line in
            guard let line else { return .failure(.released(name)) }
            return Gpiod.waitForEvent(line, orStop: stopDescriptor, isStopped: { stop.isRequested },
                                      remaining: deadline.map { d in { Int64(bitPattern: d &- Swift.min(d, clock.nowNanoseconds())) } })
                .mapError { .io(.waitForEdge, name, $0) }
        }
        return try result.get()
    }

    /// Reads every event the kernel has queued for the line, without waiting.
    @discardableResult
    public func discardQueuedEdges() throws -> Int {
        let result: Result<Int, GPIOError> = handle.withLock { line in
            guard let line else { return .failure(.released(name)) }
            return Gpiod.drainEvents(line).mapError { .io(.discardEdges, name, $0) }
        }
        return try result.get()
    }

    /// A descriptor that polls readable while an edge is queued, for a loop that also waits on
    /// other descriptors; the next `waitForEdge(until:on:stop:)` consumes the edge, or
    /// `discardQueuedEdges()` drops it. Nil once released.
    public var eventFileDescriptor: Int32? {
        handle.withLock { line in line.map { Gpiod.eventDescriptor($0) } }
    }

    /// The current logical level.
    public func isActive() throws -> Bool {
        let result: Result<Bool, GPIOError> = handle.withLock { line in
            guard let line else { return .failure(.released(name)) }
            return Gpiod.get(line).mapError { .io(.readLevel, name, $0) }
        }
        return try result.get()
    }

    /// Gives the line back to the kernel. Safe to call more than once.
    public func release() {
        handle.withLock { held in
            guard let line = held else { return }
            Gpiod.release(line)
            held = nil
        }
    }

    deinit { release() }
}
