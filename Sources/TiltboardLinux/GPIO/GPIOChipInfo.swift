#if canImport(Glibc)
import Glibc
#endif

/// A GPIO chip as the kernel presents it: `gpiochip0`, labelled `pinctrl-bcm2711`, 58 lines.
public struct GPIOChipInfo: Sendable, Equatable, CustomStringConvertible {
    /// Kernel device name, `gpiochipN`.
    public var name: String
    /// Driver label; stable across boots and kernels, unlike the number (`pinctrl-rp1` on a Pi 5).
    public var label: String
    /// Character device, `/dev/gpiochipN`.
    public var path: String
    /// Number of lines; offsets run from 0 to `lineCount - 1`.
    public var lineCount: Int

    /// A chip description, as read from the kernel or written by a test.
    public init(name: String, label: String, path: String, lineCount: Int) {
        self.name = name; self.label = label; self.path = path; self.lineCount = lineCount
    }

    /// `gpiochip0 [pinctrl-bcm2711, 58 lines]`
    public var description: String { "\(name) [\(label), \(lineCount) lines]" }

    /// The chips in `/dev` this process can open, in number order.
    public static func available(in directory: String = "/dev") -> [GPIOChipInfo] {
        GPIOChipLookup.devicePaths(in: directory).compactMap { path in
            try? Gpiod.chipInfo(path: path).get()
        }
    }
}

/// How a board file's chip string is read, and where chips are looked for.
enum GPIOChipLookup {
    /// What a chip string names.
    enum Spec: Equatable {
        /// `/dev/gpiochip0` or any path containing a slash.
        case path(String)
        /// `gpiochip0`, or a bare number meaning the same.
        case deviceName(String)
        /// Anything else: `pinctrl-bcm2711`.
        case label(String)
    }

    static func parse(_ chip: String) -> Spec {
        if chip.contains("/") { return .path(chip) }
        if !chip.isEmpty, chip.allSatisfy(\.isASCIIDigit) { return .deviceName("gpiochip" + chip) }
        if chip.hasPrefix("gpiochip"), chip.count > 8, chip.dropFirst(8).allSatisfy(\.isASCIIDigit) {
            return .deviceName(chip)
        }
        return .label(chip)
    }

    /// `gpiochipN` entries of `directory`, sorted by N so "the first chip with this label" is stable.
    static func devicePaths(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbered: [(Int, String)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasPrefix("gpiochip"), let n = Int(name.dropFirst(8)) else { continue }
            numbered.append((n, directory + "/" + name))
        }
        return numbered.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
