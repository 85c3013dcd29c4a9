import TiltboardDrivers
#if canImport(Glibc)
import Glibc
#endif

/// A chip and one of its lines, found but not yet requested.
struct FoundGPIOLine {
    let info: GPIOChipInfo
    let offset: Int
    /// `pinctrl-bcm2711 line 17 (GPIO17)`, the form `GPIOOutputLine.name` promises.
    let displayName: String
}

/// Finds a chip by label, name or path and a line by offset or name, with the errors board files need.
enum GPIOLineFinder {
    static func find(chip spec: String, line id: GPIOLineID, directory: String = "/dev") throws -> FoundGPIOLine {
        let info = try findChip(spec, directory: directory)
        let offset = try lookUp(id, info: info)
        let lineName: String?
        switch Gpiod.lineInfo(path: info.path, offset: offset) {
        case let .success(line): lineName = line.name
        case let .failure(error): throw GPIOError.io(.readLine(offset), info.path, error)
        }
        let chipName = info.label.isEmpty ? info.name : info.label
        let display = chipName + " line \(offset)" + (lineName.map { " (\($0))" } ?? "")
        return FoundGPIOLine(info: info, offset: offset, displayName: display)
    }

    /// Maps a failed request to the error a person can act on; `action` says what was asked.
    static func requestError(_ error: GPIOErrno, _ found: FoundGPIOLine, action: GPIOStep) -> GPIOError {
        if error.code == EBUSY {
            return .lineBusy(found.displayName, consumer: Gpiod.currentConsumer(path: found.info.path, offset: found.offset))
        }
        if error.isPermission { return .permissionDenied(found.info.path) }
        return .io(action, found.displayName, error)
    }

    static func findChip(_ spec: String, directory: String) throws -> GPIOChipInfo {
        switch GPIOChipLookup.parse(spec) {
        case let .path(path):
            return try chipAt(path, spec: spec, directory: directory)
        case let .deviceName(name):
            return try chipAt(directory + "/" + name, spec: spec, directory: directory)
        case let .label(label):
            var denied: String?
            for path in GPIOChipLookup.devicePaths(in: directory) {
                switch Gpiod.chipInfo(path: path) {
                case let .failure(error):
                    if error.isPermission, denied == nil { denied = path }
                case let .success(info):
                    if info.label == label { return info }
                }
            }
            // A chip we may not open could be the one asked for: the fix is the permission, not the label.
            if let denied { throw GPIOError.permissionDenied(denied) }
            throw GPIOError.chipNotFound(spec, present: GPIOChipInfo.available(in: directory), directory: directory)
        }
    }

    private static func chipAt(_ path: String, spec: String, directory: String) throws -> GPIOChipInfo {
        switch Gpiod.chipInfo(path: path) {
        case let .success(info):
            return info
        case let .failure(error):
            if error.isPermission { throw GPIOError.permissionDenied(path) }
            if error.code == ENOENT {
                throw GPIOError.chipNotFound(spec, present: GPIOChipInfo.available(in: directory), directory: directory)
            }
            if error.code == ENOTTY || error.code == ENODEV || error.code == EINVAL {
                throw GPIOError.notAChip(path, error)
            }
            throw GPIOError.io(.openChip, path, error)
        }
    }

    private static func lookUp(_ id: GPIOLineID, info: GPIOChipInfo) throws -> Int {
        switch id {
        case let .offset(n):
            guard n >= 0, n < info.lineCount else { throw GPIOError.lineNotFound(id, on: info) }
            return n
        case let .name(name):
            switch Gpiod.line(path: info.path, named: name) {
            case let .success(offset): return offset
            case let .failure(error):
                throw error.code == ENOENT ? GPIOError.lineNotFound(id, on: info) : GPIOError.io(.lookUpLine(name), info.path, error)
            }
        }
    }
}
