import CGPIODShim
import Synchronization
import TiltboardDrivers

/// A GPIO output through the kernel's character device (libgpiod 1.6 or 2.x), e.g. the motor's transistor.
///
/// The chip is found by label (`pinctrl-bcm2711`), name (`gpiochip0`) or path; the line by offset
/// or name (`GPIO17`). The line is driven inactive from the moment it is requested and again when
/// released, so the motor never starts on its own.
public final class GpiodOutputLine: GPIOOutputLine {
    /// `pinctrl-bcm2711 line 17 (GPIO17)`.
    public let name: String
    /// True when the line was requested active-low: `set(active: true)` then drives the pin low.
    public let activeLow: Bool
    /// The chip the line was found on.
    public let chip: GPIOChipInfo
    private let handle: Mutex<Gpiod.Line?>
    /// The crash handler's slot that drives this line inactive (`CrashFailSafe`).
    private let crashSlot: Mutex<Int32?>

    /// Requests the line as an output at its inactive level.
    /// - Throws: `GPIOError` (.chipNotFound, .lineNotFound, .lineBusy, .permissionDenied, .io).
    public convenience init(chip: String, line: GPIOLineID, activeLow: Bool = false, consumer: String = "tiltboard") throws {
        try self.init(chip: chip, line: line, activeLow: activeLow, consumer: consumer, deviceDirectory: "/dev")
    }

    init(chip spec: String, line id: GPIOLineID, activeLow: Bool, consumer: String, deviceDirectory: String) throws {
        let found = try GPIOLineFinder.find(chip: spec, line: id, directory: deviceDirectory)
        let line: Gpiod.Line
        switch Gpiod.requestOutput(path: found.info.path, offset: found.offset, consumer: consumer, activeLow: activeLow) {
        case let .success(requested): line = requested
        case let .failure(error): throw GPIOLineFinder.requestError(error, found, action: .requestOutput)
        }
        self.name = found.displayName
        self.activeLow = activeLow
        self.chip = found.info
        self.handle = Mutex(line)
        self.crashSlot = Mutex(CrashFailSafe.add(tb_gpio_failsafe_off, context: UnsafeMutableRawPointer(line.raw)))
    }

    /// Drives the line to its active or inactive level. No allocation unless it fails. Once a
    /// crash began (`CrashFailSafe.tripped`) the line stays inactive: driving it active does nothing.
    public func set(active: Bool) throws {
        let failure: GPIOError? = handle.withLock { line in
            guard let line else { return .released(name) }
            if active && CrashFailSafe.tripped { return nil }
            let failed = Gpiod.set(line, active: active).map { GPIOError.io(.setLevel, name, $0) }
            // A crash that began meanwhile may have run its switch-off before this ioctl.
            if active && CrashFailSafe.tripped { _ = Gpiod.set(line, active: false) }
            return failed
        }
        if let failure { throw failure }
    }

    /// The level the line is driven to now (logical: true is active).
    public func isActive() throws -> Bool {
        let result: Result<Bool, GPIOError> = handle.withLock { line in
            guard let line else { return .failure(.released(name)) }
            return Gpiod.get(line).mapError { .io(.readLevel, name, $0) }
        }
        return try result.get()
    }

    /// Drives the line inactive and releases it. Safe to call more than once.
    public func release() {
        handle.withLock { held in
            guard let line = held else { return }
            // The crash handler must not touch the line once it is freed.
            crashSlot.withLock { slot in
                if let taken = slot { CrashFailSafe.remove(taken) }
                slot = nil
            }
            // Inactive first: a released line keeps its last level on a Pi, and the motor must stop.
            _ = Gpiod.set(line, active: false)
            Gpiod.release(line)
            held = nil
        }
    }

    deinit { release() }
}
