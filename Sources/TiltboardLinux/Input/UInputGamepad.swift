#if canImport(Glibc)
import Glibc
#endif
import CLinuxSupport
import TiltboardCore
import TiltboardDrivers

/// Why the gamepad could not be created or used: the step, the device and the errno; the
/// program that shows it words it.
package struct UInputError: Error, Sendable, CustomStringConvertible {
    /// The broad kind of failure.
    package enum Kind: Sendable { case missing, permissionDenied, io }
    /// The step on the uinput device that failed.
    package enum Step: Sendable, Equatable { case open, createGamepad, writeEvents, readForceFeedback }

    /// The uinput device, `/dev/uinput`.
    package var path: String
    /// What failed.
    package var step: Step
    /// The errno of the failed call.
    package var errno: Int32

    /// The error for `errno` from `step` on `path`.
    public init(path: String, step: Step, errno code: Int32) {
        self.path = path; self.step = step; self.errno = code
    }

    /// The device missing (no uinput module), access denied, or another failure.
    public var kind: Kind {
        switch errno {
        case ENOENT, ENODEV, ENXIO: return .missing
        case EACCES, EPERM: return .permissionDenied
        default: return .io
        }
    }

    /// The step, the path and the errno, for a log; a program words it for people.
    public var description: String { "UInputError(\(step), path: \(path), errno: \(errno))" }
}

/// A gamepad made through `/dev/uinput` (include/uapi/linux/uinput.h): what games see as
/// `/dev/input/eventN`, removed again by `close()`.
package final class UInputGamepad: GamepadDevice {
    /// Where the kernel's uinput node lives.
    package static let defaultPath = "/dev/uinput"

    private var fd: Int32
    package let path: String
    private var last: (x: Int32, y: Int32, button: Bool)?

    /// Opens `path` and creates a gamepad called `name` with `effectSlots` force-feedback slots;
    /// with 0 the device offers no force feedback at all (a board without a motor).
    package init(name: String, path: String = defaultPath, effectSlots: Int = RumbleScheduler.maxEffects) throws {
        self.path = path
        fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw UInputError(path: path, step: .open, errno: errno) }
        let rc = tiltboard_uinput_create_gamepad(fd, name, UInt32(effectSlots))
        if rc < 0 {
            Glibc.close(fd)
            fd = -1
            throw UInputError(path: path, step: .createGamepad, errno: -rc)
        }
    }

    deinit { close() }

    package func report(x: Int32, y: Int32, button: Bool) throws {
        let limit = GamepadAxes.maxValue
        let x = Swift.min(limit, Swift.max(-limit, x)), y = Swift.min(limit, Swift.max(-limit, y))
        if let last, last == (x, y, button) { return }
        let rc = tiltboard_uinput_report(fd, x, y, button ? 1 : 0)
        if rc < 0 { throw UInputError(path: path, step: .writeEvents, errno: -rc) }
        last = (x, y, button)
    }

    package func pollRequests(_ handle: (ForceFeedbackRequest) -> Void) throws {
        var request = tiltboard_ff_request()
        while true {
            let rc = tiltboard_uinput_next(fd, &request)
            if rc == 0 { return }
            if rc < 0 { throw UInputError(path: path, step: .readForceFeedback, errno: -rc) }
            let id = Int(request.id)
            switch request.kind {
            case TILTBOARD_FF_UPLOAD:
                let effect = request.rumble != 0
                    ? RumbleEffect.rumble(strong: request.strong, weak: request.weak, lengthMs: request.length_ms, delayMs: request.delay_ms)
                    : RumbleEffect.level(request.level, lengthMs: request.length_ms, delayMs: request.delay_ms)
                handle(.upload(id: id, effect))
            case TILTBOARD_FF_ERASE: handle(.erase(id: id))
            case TILTBOARD_FF_PLAY: handle(.play(id: id, count: request.value))
            case TILTBOARD_FF_GAIN: handle(.gain(request.value))
            default: break
            }
        }
    }

    package func close() {
        guard fd >= 0 else { return }
        _ = tiltboard_uinput_destroy(fd)
        Glibc.close(fd)
        fd = -1
    }
}
