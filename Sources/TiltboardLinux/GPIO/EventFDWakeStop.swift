import CLinuxSupport
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TiltboardDrivers

/// A stop for waits on a kernel GPIO line: an eventfd(2) that a request makes readable, polled
/// beside the line's event descriptor, so the wait ends at once on either and on nothing else.
/// The descriptor is closed when the stop goes away.
package final class EventFDWakeStop: WakeStop {
    /// Polls readable once requested (never read: a request is final).
    package let descriptor: Int32
    private let requested = Atomic<Bool>(false)

    /// - Throws: `GPIOError` (.io) when the kernel refuses a descriptor (EMFILE, ENOMEM).
    package init() throws {
        let fd = tiltboard_eventfd()
        guard fd >= 0 else {
            let error = GPIOErrno(code: -fd)
            throw GPIOError(.wakeStop(errno: error.code))
        }
        descriptor = fd
    }

    package var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Sets the flag, then adds 1 to the counter (eventfd(2): readable while non-zero). Only
    /// `write` on a descriptor, so a signal-watching thread may call it.
    package func request() {
        requested.store(true, ordering: .releasing)
        var one: UInt64 = 1
        // EAGAIN only when the counter would overflow: it is readable already.
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    deinit { close(descriptor) }
}
