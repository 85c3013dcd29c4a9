import TiltboardDrivers
#if canImport(Glibc)
import Glibc
#endif

/// A chip and one of its lines, open but not yet requested.
struct OpenedGPIOLine {
    let chip: Gpiod1.Chip
    let line: Gpiod1.Line
    let info: GPIOChipInfo
    /// `pinctrl-bcm2711 line 17 (GPIO17)`, the form `GPIOOutputLine.name` promises.
    let displayName: String
}

/// Finds a chip by label, name or path and a line by offset or name, with the errors board files need.
enum GPIOLineOpener {
    static func open(chip spec: String, line id: GPIOLineID, directory: String = "/dev") throws -> OpenedGPIOLine {
        let (chip, info) = try openChip(spec, directory: directory)
        let line: Gpiod1.Line
        switch lookUp(id, on: chip, info: info) {
        case let .success(found):
            line = found
        case let .failure(error):
            Gpiod1.close(chip)
            throw error
        }
        let offset = Gpiod1.offset(line)
        let chipName = info.label.isEmpty ? info.name : info.label
        let display = chipName + " line \(offset)" + (Gpiod1.name(line).map { " (\($0))" } ?? "")
        return OpenedGPIOLine(chip: chip, line: line, info: info, displayName: display)
    }

    /// Maps a failed request to the error a person can act on; `action` says what was asked.
    static func requestError(_ error: GPIOErrno, _ opened: OpenedGPIOLine, action: String) -> GPIOError {
        if error.code == EBUSY {
            return .lineBusy(opened.displayName, consumer: Gpiod1.currentConsumer(opened.line))
        }
        if error.isPermission { return .permissionDenied(opened.info.path) }
        return .io(action, opened.displayName, error)
    }

    static func openChip(_ spec: String, directory: String) throws -> (Gpiod1.Chip, GPIOChipInfo) {
        switch GPIOChipLookup.parse(spec) {
        case let .path(path):
            return try openPath(path, spec: spec, directory: directory)
        case let .deviceName(name):
            return try openPath(directory + "/" + name, spec: spec, directory: directory)
        case let .label(label):
            var denied: String?
            for path in GPIOChipLookup.devicePaths(in: directory) {
                switch Gpiod1.openChip(path: path) {
                case let .failure(error):
                    if error.isPermission, denied == nil { denied = path }
                case let .success(chip):
                    let info = Gpiod1.info(chip, path: path)
                    if info.label == label { return (chip, info) }
                    Gpiod1.close(chip)
                }
            }
            // A chip we may not open could be the one asked for: the fix is the permission, not the label.
            if let denied { throw GPIOError.permissionDenied(denied) }
            throw GPIOError.chipNotFound(spec, present: GPIOChipInfo.available(in: directory), directory: directory)
        }
    }

    private static func openPath(_ path: String, spec: String, directory: String) throws -> (Gpiod1.Chip, GPIOChipInfo) {
        switch Gpiod1.openChip(path: path) {
        case let .success(chip):
            return (chip, Gpiod1.info(chip, path: path))
        case let .failure(error):
            if error.isPermission { throw GPIOError.permissionDenied(path) }
            if error.code == ENOENT {
                throw GPIOError.chipNotFound(spec, present: GPIOChipInfo.available(in: directory), directory: directory)
            }
            if error.code == ENOTTY || error.code == ENODEV || error.code == EINVAL {
                throw GPIOError.notAChip(path, error)
            }
            throw GPIOError.io("opening the chip", path, error)
        }
    }

    private static func lookUp(_ id: GPIOLineID, on chip: Gpiod1.Chip, info: GPIOChipInfo) -> Result<Gpiod1.Line, GPIOError> {
        switch id {
        case let .offset(n):
            guard n >= 0, n < info.lineCount else { return .failure(.lineNotFound(id, on: info)) }
            return Gpiod1.line(chip, offset: n).mapError { .io("reading line \(n)", info.path, $0) }
        case let .name(name):
            return Gpiod1.line(chip, named: name).mapError { error in
                error.code == ENOENT ? .lineNotFound(id, on: info) : .io("looking up line \(name)", info.path, error)
            }
        }
    }
}
