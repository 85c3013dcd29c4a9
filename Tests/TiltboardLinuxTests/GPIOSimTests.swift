import XCTest
import TiltboardDrivers
@testable import TiltboardLinux
import TiltboardTestSupport

/// The libgpiod backend against the kernel's gpio-sim, run by `Tests/hil/run-hil.sh` inside QEMU.
///
/// `TILTBOARD_GPIO_SIM=<label>:<sysfs dir>` names a live gpio-sim chip whose line 17 is called
/// `GPIO17` and line 4 `GPIO4`, e.g. `pinctrl-bcm2711:/sys/devices/platform/gpio-sim.0/gpiochip0`.
/// Without it (any ordinary machine) every test is skipped.
final class GPIOSimTests: XCTestCase {
    private var label = ""
    private var sysfs = ""

    override func setUpWithError() throws {
        guard let spec = ProcessInfo.processInfo.environment["TILTBOARD_GPIO_SIM"],
              let colon = spec.firstIndex(of: ":") else {
            throw XCTSkip("needs a gpio-sim chip (TILTBOARD_GPIO_SIM); run Tests/hil/run-hil.sh")
        }
        label = String(spec[..<colon])
        sysfs = String(spec[spec.index(after: colon)...])
    }

    private func simValue(_ offset: Int) throws -> String {
        try String(contentsOfFile: "\(sysfs)/sim_gpio\(offset)/value", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func setPull(_ offset: Int, _ pull: String) throws {
        try pull.write(toFile: "\(sysfs)/sim_gpio\(offset)/pull", atomically: false, encoding: .utf8)
    }

    /// The consumer the kernel records for `offset`, read through a second, independent chip handle.
    private func consumer(_ offset: Int) throws -> String? {
        let chip = try GPIOLineFinder.findChip(label, directory: "/dev")
        let info = try Gpiod.lineInfo(path: chip.path, offset: offset).get()
        return info.used ? info.consumer : nil
    }

    private var chipName: String { URL(fileURLWithPath: sysfs).lastPathComponent }

    func testOutputFoundByLabelAndNameDrivesTheLine() throws {
        let line = try GpiodOutputLine(chip: label, line: .name("GPIO17"))
        XCTAssertEqual(line.name, "\(label) line 17 (GPIO17)")
        XCTAssertEqual(line.chip.label, label)
        XCTAssertEqual(line.chip.name, chipName)
        XCTAssertEqual(try simValue(17), "0", "requested inactive")
        XCTAssertEqual(try consumer(17), "tiltboard")
        try line.set(active: true)
        XCTAssertEqual(try simValue(17), "1")
        XCTAssertTrue(try line.isActive())
        try line.set(active: false)
        XCTAssertEqual(try simValue(17), "0")
        try line.set(active: true)
        line.release()
        XCTAssertEqual(try simValue(17), "0", "release drives inactive first")
        XCTAssertNil(try consumer(17), "released")
        line.release()
        XCTAssertThrowsError(try line.set(active: true)) { error in
            XCTAssertEqual((error as? GPIOError)?.kind, .io)
        }
    }

    func testActiveLowInvertsThePin() throws {
        let line = try GpiodOutputLine(chip: label, line: .offset(17), activeLow: true, consumer: "motor-test")
        XCTAssertEqual(try simValue(17), "1", "inactive is high on an active-low line")
        XCTAssertEqual(try consumer(17), "motor-test")
        try line.set(active: true)
        XCTAssertEqual(try simValue(17), "0")
        try line.set(active: false)
        XCTAssertEqual(try simValue(17), "1")
        line.release()
    }

    func testChipByDeviceNameAndByPath() throws {
        let byName = try GpiodOutputLine(chip: chipName, line: .offset(17))
        XCTAssertEqual(byName.chip.label, label)
        byName.release()
        let byPath = try GpiodOutputLine(chip: "/dev/\(chipName)", line: .name("GPIO17"))
        try byPath.set(active: true)
        XCTAssertEqual(try simValue(17), "1")
        byPath.release()
    }

    func testDeinitReleasesTheLine() throws {
        do {
            let line = try GpiodOutputLine(chip: label, line: .name("GPIO17"))
            try line.set(active: true)
            XCTAssertEqual(try consumer(17), "tiltboard")
        }
        XCTAssertNil(try consumer(17))
        XCTAssertEqual(try simValue(17), "0")
    }

    func testBusyLineNamesItsConsumer() throws {
        let holder = try GpiodOutputLine(chip: label, line: .name("GPIO17"), consumer: "other-program")
        defer { holder.release() }
        XCTAssertThrowsError(try GpiodOutputLine(chip: label, line: .name("GPIO17"))) { error in
            let gpio = error as? GPIOError
            XCTAssertEqual(gpio?.kind, .lineBusy)
            XCTAssertEqual(gpio?.problem, .lineBusy(line: "\(self.label) line 17 (GPIO17)", consumer: "other-program"), "\(error)")
        }
    }

    func testMissingLinesAndChips() throws {
        XCTAssertThrowsError(try GpiodOutputLine(chip: label, line: .name("GPIO99"))) { error in
            XCTAssertEqual((error as? GPIOError)?.kind, .lineNotFound)
            guard case let .noLineNamed(name, chip)? = (error as? GPIOError)?.problem else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "GPIO99")
            XCTAssertEqual(chip.label, self.label)
        }
        XCTAssertThrowsError(try GpiodOutputLine(chip: label, line: .offset(58))) { error in
            XCTAssertEqual((error as? GPIOError)?.kind, .lineNotFound)
            guard case let .noLineOffset(n, chip)? = (error as? GPIOError)?.problem else { return XCTFail("\(error)") }
            XCTAssertEqual(n, 58)
            XCTAssertEqual(chip.lineCount, 58)
        }
        XCTAssertThrowsError(try GpiodOutputLine(chip: "pinctrl-rp1", line: .name("GPIO17"))) { error in
            XCTAssertEqual((error as? GPIOError)?.kind, .chipNotFound)
            guard case let .chipNotFound(spec, present)? = (error as? GPIOError)?.problem else { return XCTFail("\(error)") }
            XCTAssertEqual(spec, "pinctrl-rp1")
            XCTAssertTrue(present.contains(GPIOChipSummary(name: self.chipName, label: self.label, lineCount: 58)), "\(present)")
        }
        XCTAssertTrue(GPIOChipInfo.available().contains { $0.label == label && $0.lineCount == 58 })
    }

    func testInputSeesRisingEdgesOnly() throws {
        try setPull(4, "pull-down")
        let line = try GpiodInputLine(chip: label, line: .name("GPIO4"))
        defer { line.release() }
        let clock = LinuxMonotonicClock()
        XCTAssertEqual(line.name, "\(label) line 4 (GPIO4)")
        XCTAssertFalse(try line.waitForEdge(within: .milliseconds(50), on: clock), "no edge yet")
        try setPull(4, "pull-up")
        XCTAssertTrue(try line.waitForEdge(within: .seconds(2), on: clock))
        XCTAssertTrue(try line.isActive())
        try setPull(4, "pull-down")
        XCTAssertFalse(try line.waitForEdge(within: .milliseconds(100), on: clock), "falling edges are not reported")
        XCTAssertFalse(try line.isActive())
        // An edge is queued while nobody waits, and consumed by one wait. (Two quick pulses may
        // merge into one interrupt, in gpio-sim as on a real chip, so only one is counted on.)
        try setPull(4, "pull-up")
        try setPull(4, "pull-down")
        XCTAssertTrue(try line.waitForEdge(within: .seconds(1), on: clock))
        XCTAssertFalse(try line.waitForEdge(within: .milliseconds(50), on: clock))

        // The event descriptor polls readable exactly while an edge is queued.
        let fd = try XCTUnwrap(line.eventFileDescriptor)
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&entry, 1, 0), 0)
        try setPull(4, "pull-up")
        XCTAssertEqual(poll(&entry, 1, 2000), 1)
        XCTAssertEqual(try line.discardQueuedEdges(), 1)
        entry.revents = 0
        XCTAssertEqual(poll(&entry, 1, 0), 0)
        try setPull(4, "pull-down")
        line.release()
        XCTAssertNil(line.eventFileDescriptor)
    }

    func testTheEdgeWaitEndsOnTheEdgeTheStopOrTheDeadline() throws {
        try setPull(4, "pull-down")
        let line = try GpiodInputLine(chip: label, line: .name("GPIO4"))
        defer { line.release() }
        let clock = LinuxMonotonicClock()
        let stop = try line.makeWakeStop()
        let deadline = clock.nowNanoseconds() + 50_000_000
        XCTAssertEqual(try line.waitForEdge(until: deadline, on: clock, stop: stop), .deadline)
        XCTAssertGreaterThanOrEqual(clock.nowNanoseconds(), deadline)
        try setPull(4, "pull-up")
        XCTAssertEqual(try line.waitForEdge(until: clock.nowNanoseconds() + 2_000_000_000, on: clock, stop: stop), .edge)
        try setPull(4, "pull-down")

        // No deadline: only the stop, from another thread, ends the wait.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<EdgeWait, Error>?
        let thread = Thread {
            result = Result { try line.waitForEdge(until: nil, on: clock, stop: stop) }
            done.signal()
        }
        thread.start()
        stop.request()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the stop never woke the wait")
        XCTAssertEqual(try result?.get(), .stopped)
        XCTAssertEqual(try line.waitForEdge(until: nil, on: clock, stop: stop), .stopped, "a request is final")
    }

    func testEveryQueuedEdgeIsDiscardedWithoutWaiting() throws {
        try setPull(4, "pull-down")
        let line = try GpiodInputLine(chip: label, line: .name("GPIO4"))
        defer { line.release() }
        let fd = try XCTUnwrap(line.eventFileDescriptor)
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        for _ in 0..<5 {
            try setPull(4, "pull-up")
            try setPull(4, "pull-down")
        }
        XCTAssertEqual(poll(&entry, 1, 2000), 1, "edges queued")
        // Quick pulses may merge, so at least one and at most five were queued; all go.
        let discarded = try line.discardQueuedEdges()
        XCTAssertTrue((1...5).contains(discarded), "\(discarded)")
        entry.revents = 0
        XCTAssertEqual(poll(&entry, 1, 0), 0, "nothing left queued")
        XCTAssertEqual(try line.discardQueuedEdges(), 0)
        line.release()
        XCTAssertThrowsError(try line.discardQueuedEdges())
    }
}
