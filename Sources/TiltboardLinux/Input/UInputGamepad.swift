#if canImport(Glibc)
import Glibc
#endif
import CLinuxSupport
import TiltboardCore
import TiltboardDrivers

/// Why the gamepad could not be created.
package struct UInputError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable { case missing, permissionDenied, io }
    package var kind: Kind
    package var description: String

    /// The error for `errno` from `step` on `path`.
    init(path: String, step: String, errno code: Int32) {
        switch code {
        case ENOENT, ENODEV, ENXIO:
            kind = .missing
            description = "\(path) does not exist: the uinput module is not loaded"
        case EACCES, EPERM:
            kind = .permissionDenied
            description = "no permission to open \(path)"
        default:
            kind = .io
            description = "\(step) \(path): \(String(cString: strerror(code)))"
        }
    }
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
        guard fd >= 0 else { throw UInputError(path: path, step: "open", errno: errno) }
        let rc = tiltboard_uinput_create_gamepad(fd, name, UInt32(effectSlots))
        if rc < 0 {
            Glibc.close(fd)
            fd = -1
            throw UInputError(path: path, step: "creating a gamepad on", errno: -rc)
        }
    }

    deinit { close() }

    package func report(x: Int32, y: Int32, button: Bool) throws {
        let limit = GamepadAxes.maxValue
        let x = Swift.min(limit, Swift.max(-limit, x)), y = Swift.min(limit, Swift.max(-limit, y))
        if let last, last == (x, y, button) { return }
        let rc = tiltboard_uinput_report(fd, x, y, button ? 1 : 0)
        if rc < 0 { throw UInputError(path: path, step: "writing events to", errno: -rc) }
        last = (x, y, button)
    }

    package func pollRequests(_ handle: (ForceFeedbackRequest) -> Void) throws {
        var request = tiltboard_ff_request()
        while true {
            let rc = tiltboard_uinput_next(fd, &request)
            if rc == 0 { return }
            if rc < 0 { throw UInputError(path: path, step: "reading force-feedback requests from", errno: -rc) }
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
