import Foundation
import XCTest
import TiltboardCommands
import TiltboardDrivers
import TiltboardLinux

/// No sentence meant for a person and no command-line flag in the five library targets: their
/// errors carry kinds and fields, and the words live in TiltboardCommands' one table. Doc comments
/// and comments are not scanned; string literals are.
final class LibraryWordsTests: XCTestCase {
    static let libraryTargets = ["Tiltboard", "TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux"]

    /// Literals that may stay, each with its reason.
    static let allowed: [(file: String, text: String, why: String)] = [
        // The kernel's strerror(3) texts for the I²C fault codes: data the simulated bus reports
        // as a real adapter's errno would carry, not words of this program.
        ("TiltboardDrivers/I2CFaultCodes.swift", "*", "the kernel's strerror texts"),
        // The Sense HAT's other devices on the bus, named as the board's documentation names them.
        ("TiltboardDrivers/Chips/LSM9DS1/LSM9DS1Chip.swift", "Sense HAT ", "device names"),
    ]

    func testNoSentenceOrFlagInALibraryTarget() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        var found: [String] = []
        var scanned = 0
        for target in Self.libraryTargets {
            let root = sources.appendingPathComponent(target)
            let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: root.path)).filter { $0.hasSuffix(".swift") }.sorted()
            for file in files {
                let relative = target + "/" + file
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                scanned += 1
                for finding in Self.findings(in: text) where !Self.isAllowed(finding.text, in: relative) {
                    found.append("Sources/\(relative):\(finding.line): \"\(finding.text)\"")
                }
            }
        }
        XCTAssertGreaterThan(scanned, 100, "the library sources were found")
        XCTAssertEqual(found, [], "sentences or flags in library targets; word them in TiltboardCommands/Words:\n" + found.joined(separator: "\n"))
    }

    /// The scanner finds a sentence, a flag and a message that starts with an interpolation, and
    /// skips comments, doc comments, a programmer's precondition and short data names.
    func testTheScannerFindsWhatItShould() {
        let sample = #"""
        /// A doc comment "with a quoted phrase in it".
        // a comment "with another phrase here"
        /* a block "comment with words" */
        let a = "this is a sentence"
        let b = "\(path): cannot open it"
        let c = "use --profile"
        let d = "MPU-6050"
        let e = "WHO_AM_I"
        precondition(x > 0, "x must be positive here")
        let f = #"raw string with three words"#
        let g = """
            one two three
            """
        let h = "\(a) \(b) \(c)"
        let i = "quote \"inside the text\" here"
        """#
        let texts = Self.findings(in: sample).map(\.text)
        XCTAssertEqual(texts, ["this is a sentence", "\\(…): cannot open it", "use --profile", "raw string with three words",
                               "\n    one two three\n    ", "quote \\\"inside the text\\\" here"])
        XCTAssertEqual(Self.findings(in: sample).map(\.line), [4, 5, 6, 10, 11, 15])
        XCTAssertTrue(Self.isAllowed("No such device", in: "TiltboardDrivers/I2CFaultCodes.swift"))
        XCTAssertFalse(Self.isAllowed("No such device", in: "TiltboardDrivers/Other.swift"))
    }

    static func isAllowed(_ text: String, in file: String) -> Bool {
        allowed.contains { $0.file == file && ($0.text == "*" || text.hasPrefix($0.text)) }
    }

    /// String literals that read as a sentence (three words in a row, each with a lowercase
    /// letter), start a message with an interpolation (`"\(x): …"`), or name a flag (`--name`).
    /// Literals in a precondition, an assertion or a fatalError (a programmer's mistake, never
    /// shown for a user's input) are left out.
    static func findings(in source: String) -> [(line: Int, text: String)] {
        let chars = Array(source.unicodeScalars)
        var out: [(line: Int, text: String)] = []
        var i = 0, line = 1
        var lineStart = 0
        func starts(_ s: String, at k: Int) -> Bool {
            let u = Array(s.unicodeScalars)
            return k + u.count <= chars.count && Array(chars[k..<(k + u.count)]) == u
        }
        while i < chars.count {
            let c = chars[i]
            if c == "\n" { line += 1; i += 1; lineStart = i; continue }
            if starts("//", at: i) {
                while i < chars.count && chars[i] != "\n" { i += 1 }
                continue
            }
            if starts("/*", at: i) {
                i += 2
                while i < chars.count && !starts("*/", at: i) { if chars[i] == "\n" { line += 1 }; i += 1 }
                i += 2
                continue
            }
            var hashes = 0
            while i + hashes < chars.count && chars[i + hashes] == "#" { hashes += 1 }
            guard i + hashes < chars.count, chars[i + hashes] == "\"" else { i += max(1, hashes); continue }
            let prefix = String(String.UnicodeScalarView(chars[lineStart..<i]))
            i += hashes
            let quote = starts("\"\"\"", at: i) ? "\"\"\"" : "\""
            let close = Array((quote + String(repeating: "#", count: hashes)).unicodeScalars)
            i += quote.unicodeScalars.count
            let startLine = line
            var text = String.UnicodeScalarView()
            while i < chars.count {
                if i + close.count <= chars.count && Array(chars[i..<(i + close.count)]) == close { i += close.count; break }
                let ch = chars[i]
                if ch == "\\" && (1...hashes + 1).allSatisfy({ i + $0 < chars.count }) && (0..<hashes).allSatisfy({ chars[i + 1 + $0] == "#" }) {
                    let k = i + 1 + hashes
                    if chars[k] == "(" {
                        var depth = 1, j = k + 1
                        while j < chars.count && depth > 0 {
                            if chars[j] == "(" { depth += 1 } else if chars[j] == ")" { depth -= 1 } else if chars[j] == "\"" {
                                j += 1
                                while j < chars.count && chars[j] != "\"" { if chars[j] == "\\" { j += 1 }; j += 1 }
                            }
                            j += 1
                        }
                        text.append(contentsOf: "\\(…)".unicodeScalars)
                        i = j
                        continue
                    }
                    text.append(contentsOf: chars[i...k])
                    i = k + 1
                    continue
                }
                if ch == "\n" { line += 1; lineStart = i + 1 }
                text.append(ch)
                i += 1
            }
            let literal = String(text)
            let programmer = ["precondition(", "preconditionFailure(", "assert(", "assertionFailure(", "fatalError("].contains { prefix.contains($0) }
            if !programmer && reads(literal) { out.append((startLine, literal)) }
        }
        return out
    }

    /// Three words in a row with lowercase letters, a message led by an interpolation, or a flag.
    static func reads(_ literal: String) -> Bool {
        literal.range(of: #"[A-Za-z']*[a-z][A-Za-z']*( [A-Za-z']*[a-z][A-Za-z']*){2,}"#, options: .regularExpression) != nil
            || literal.range(of: #"^\\\(…\): [a-z]"#, options: .regularExpression) != nil
            || literal.range(of: #"(^|[^A-Za-z0-9-])--[a-z]"#, options: .regularExpression) != nil
    }
}

/// The table's words for the rest of the library's kinds: files, a chip's identity, the stop
/// deadline, a failed output.
final class ErrorWordingLibraryKindsTests: XCTestCase {
    func testFileKindsHaveTheirSentences() {
        XCTAssertEqual(describe(NotARegularFile(path: "/tmp/x", kind: .fifo)), "/tmp/x is a FIFO, not a regular file")
        XCTAssertEqual(describe(NotARegularFile(path: "/tmp/x", kind: .folder)), "/tmp/x is a folder, not a regular file")
        XCTAssertEqual(describe(FileTooLarge(path: "/tmp/x", size: 2000, limit: 1000)), "/tmp/x is a file of 2000 bytes, more than the 1000 bytes it may have")
        let types: [(FileType, String)] = [(.regular, "a regular file"), (.folder, "a folder"), (.characterDevice, "a character device"),
                                           (.blockDevice, "a block device"), (.fifo, "a FIFO"), (.socket, "a socket"),
                                           (.symlink, "a symlink"), (.other, "not a file")]
        for (type, words) in types { XCTAssertEqual(ErrorWording.fileType(type), words) }
    }

    func testAChipsIdentityIsWorded() {
        let identity = SensorIdentity(chip: .mpu6050, part: "MPU-6500 (clone ID 0x70)", chipID: 0x70, bus: "/dev/i2c-1", address: 0x68,
                                      warning: CloneWarning(idRegister: "WHO_AM_I", part: "MPU-6500", genuinePart: "MPU-6050"))
        XCTAssertEqual(ErrorWording.cloneWarning(identity.warning!, of: identity),
                       "WHO_AM_I 0x70 at 0x68 on /dev/i2c-1 is an MPU-6500, not a genuine MPU-6050: accepted as compatible; if readings look wrong, try a genuine MPU-6050")
        XCTAssertEqual(ErrorWording.expectedChip(ExpectedChip(id: 0xE5, part: "ADXL345")), "0xe5 (ADXL345)")
        XCTAssertEqual(ErrorWording.expectedChip(ExpectedChip(id: 0x68, part: "MPU-6050", compatibleIDs: [0x70, 0x98])),
                       "0x68 (MPU-6050) or a known compatible ID (0x70, 0x98)")
        XCTAssertEqual(ErrorWording.expectedChip(ExpectedChip(id: 0x33, part: "LIS3DH", asWhenOpened: true)),
                       "0x33 (LIS3DH, as when the board was opened)")
    }

    func testABusFailureWithoutAnErrnoIsWorded() {
        let causes: [(I2CError.Cause, String)] = [
            (.shortRead(read: 3, expected: 14), "short read: 3 of 14 bytes"),
            (.partialTransfer(transferred: 1, messages: 2), "only 1 of 2 messages transferred"),
            (.simulatedNoDevice, "simulated: no device"),
            (.simulatedFault, "simulated fault"),
        ]
        for (cause, words) in causes { XCTAssertEqual(ErrorWording.causeWords(cause), words) }
        XCTAssertEqual(describe(I2CError(kind: .noAcknowledgeData, device: "/dev/i2c-1", address: 0x68, register: 0x3B,
                                         cause: .shortRead(read: 3, expected: 14))),
                       "I²C device 0x68 on /dev/i2c-1 stopped acknowledging (register 0x3b, short read: 3 of 14 bytes)")
        XCTAssertEqual(ErrorWording.addressPins.components(separatedBy: "; ").first, "MPU-6050 AD0: 0x68 low / 0x69 high")
    }

    func testTheStopDeadlineAndAFailedMotorLogAreWorded() {
        XCTAssertEqual(stopDeadlineNote(signal: 15, waited: .seconds(2)),
                       "tiltboard: stopped by signal 15; still busy after 2.0 s (output nobody reads?), ended with the motor off\n")
        XCTAssertEqual(describe(OutputFailure.Failure(what: .motorLog(path: "/tmp/m.log"), errno: ENOSPC)),
                       "cannot write to motor log /tmp/m.log: No space left on device (errno 28): free some disk space")
        XCTAssertEqual(describe(OutputFailure.Failure(what: .standardError, errno: EIO)),
                       "cannot write to standard error: Input/output error (errno 5): the device or terminal is gone")
    }
}
