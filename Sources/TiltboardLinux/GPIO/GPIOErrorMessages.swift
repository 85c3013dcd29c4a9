import TiltboardDrivers

/// Every GPIO failure of the Linux layer, as kinds with fields; the program that shows them words them.
extension GPIOError {
    static func chipNotFound(_ spec: String, present chips: [GPIOChipInfo], directory: String = "/dev") -> GPIOError {
        if chips.isEmpty { return GPIOError(.noChips(spec: spec, directory: directory)) }
        return GPIOError(.chipNotFound(spec: spec, present: chips.map(\.summary)))
    }

    static func notAChip(_ path: String, _ error: GPIOErrno) -> GPIOError {
        GPIOError(.notAChip(path: path, errno: error.code))
    }

    static func permissionDenied(_ path: String) -> GPIOError {
        GPIOError(.permissionDenied(path: path))
    }

    static func lineNotFound(_ id: GPIOLineID, on chip: GPIOChipInfo) -> GPIOError {
        switch id {
        case let .offset(n): return GPIOError(.noLineOffset(n, chip: chip.summary))
        case let .name(s): return GPIOError(.noLineNamed(s, chip: chip.summary))
        }
    }

    static func lineBusy(_ line: String, consumer: String?) -> GPIOError {
        GPIOError(.lineBusy(line: line, consumer: consumer))
    }

    static func io(_ step: GPIOStep, _ line: String, _ error: GPIOErrno) -> GPIOError {
        GPIOError(.failed(step, line: line, errno: error.code))
    }

    static func released(_ line: String) -> GPIOError {
        GPIOError(.released(line: line))
    }
}

extension GPIOChipInfo {
    /// The name, label and line count a failure names.
    public var summary: GPIOChipSummary { GPIOChipSummary(name: name, label: label, lineCount: lineCount) }
}
