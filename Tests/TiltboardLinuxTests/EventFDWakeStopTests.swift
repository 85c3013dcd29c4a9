import XCTest
import TiltboardDrivers
@testable import TiltboardLinux

/// The eventfd behind a stop of a wait on a kernel GPIO line (no GPIO needed).
final class EventFDWakeStopTests: XCTestCase {
    private func readable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    func testARequestMakesTheDescriptorReadableAndStaysRequested() throws {
        let stop = try EventFDWakeStop()
        XCTAssertGreaterThanOrEqual(stop.descriptor, 0)
        XCTAssertFalse(stop.isRequested)
        XCTAssertFalse(readable(stop.descriptor))
        stop.request()
        XCTAssertTrue(stop.isRequested)
        XCTAssertTrue(readable(stop.descriptor))
        stop.request()
        XCTAssertTrue(readable(stop.descriptor), "polling does not consume it")
        XCTAssertEqual(fcntl(stop.descriptor, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC)
    }

    func testARequestFromAnotherThreadWakesAPollWithNoTimeout() throws {
        let stop = try EventFDWakeStop()
        let done = DispatchSemaphore(value: 0)
        let fd = stop.descriptor
        nonisolated(unsafe) var rc: Int32 = -2
        let thread = Thread {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            rc = poll(&entry, 1, -1)
            done.signal()
        }
        thread.start()
        stop.request()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the poll never woke")
        XCTAssertEqual(rc, 1)
    }

    func testTheDescriptorIsClosedWithTheStop() throws {
        var stop: EventFDWakeStop? = try EventFDWakeStop()
        let fd = try XCTUnwrap(stop?.descriptor)
        XCTAssertNotEqual(fcntl(fd, F_GETFD), -1)
        stop = nil
        XCTAssertEqual(fcntl(fd, F_GETFD), -1)
        XCTAssertEqual(errno, EBADF)
    }
}
