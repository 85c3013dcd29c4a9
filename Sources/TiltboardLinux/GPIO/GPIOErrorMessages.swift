import TiltboardDrivers

/// The messages of every GPIO failure, in one place so their wording can be tested without hardware.
extension GPIOError {
    static let labelHint =
        "set the board file's chip to one of these labels (Raspberry Pi 5: pinctrl-rp1, Pi 4: pinctrl-bcm2711, older Pis: pinctrl-bcm2835)"

    static func chipNotFound(_ spec: String, present chips: [GPIOChipInfo], directory: String = "/dev") -> GPIOError {
        if chips.isEmpty {
            return GPIOError(kind: .chipNotFound, message:
                "GPIO chip \(spec) not found: no GPIO chips found in \(directory); on a Raspberry Pi they are always there (check `ls /dev/gpiochip*`), elsewhere the kernel needs a GPIO driver")
        }
        let list = chips.map(\.description).joined(separator: ", ")
        return GPIOError(kind: .chipNotFound, message: "GPIO chip \(spec) not found; chips present: \(list); \(labelHint)")
    }

    static func notAChip(_ path: String, _ error: GPIOErrno) -> GPIOError {
        GPIOError(kind: .chipNotFound, message:
            "\(path) is not a GPIO chip (\(error.text)); name the chip by label (e.g. pinctrl-bcm2711) or as /dev/gpiochipN")
    }

    static func permissionDenied(_ path: String) -> GPIOError {
        GPIOError(kind: .permissionDenied, message: "GPIO chip \(path): permission denied")
    }

    static func lineNotFound(_ id: GPIOLineID, on chip: GPIOChipInfo) -> GPIOError {
        switch id {
        case let .offset(n):
            return GPIOError(kind: .lineNotFound, message:
                "GPIO chip \(chip.label) (\(chip.name)) has no line \(n): its lines are 0…\(max(0, chip.lineCount - 1)); check the board file's line")
        case let .name(s):
            return GPIOError(kind: .lineNotFound, message:
                "GPIO chip \(chip.label) (\(chip.name)) has no line named \(s); list the names with `gpioinfo \(chip.name)` or give the line's offset")
        }
    }

    static func lineBusy(_ line: String, consumer: String?) -> GPIOError {
        let holder = consumer.map { "\"\($0)\"" } ?? "another program or a kernel driver (no consumer name given)"
        return GPIOError(kind: .lineBusy, message:
            "GPIO \(line) is in use by \(holder); stop that program (see `gpioinfo`), remove the overlay that claims the pin, or wire the motor to another line")
    }

    static func io(_ action: String, _ line: String, _ error: GPIOErrno) -> GPIOError {
        GPIOError(kind: .io, message:
            "GPIO \(line): \(action) failed: \(error.text) (errno \(error.code)); check that the chip still exists (`gpiodetect`) and retry")
    }

    static func released(_ line: String) -> GPIOError {
        GPIOError(kind: .io, message: "GPIO \(line) was already released; request the line again before driving it")
    }
}
