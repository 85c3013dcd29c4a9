import Foundation
import XCTest
import Tiltboard
import TiltboardCore
import TiltboardDrivers

/// Spans at the library's public edge are `Duration`: this reads the library targets' sources and
/// fails, listing them, on every public declaration (a property, a parameter, or a case of a public
/// enum) whose name says it is a span of time (`seconds`, `…Ms`, `duration`, `interval`,
/// `timeout`, `period`, `delay`, `after`, `span`, or a step `dt`) and whose type is a number.
/// Instants (`t`, `until…`, `start…`, `now…`) and spans of something else (`…G`, in g) are not
/// spans of time.
final class PublicSpanScanTests: XCTestCase {
    static let libraryTargets = ["Tiltboard", "TiltboardCore", "TiltboardDrivers", "TiltboardSimulator", "TiltboardLinux"]

    /// Numbers that are not spans of time, or are the maths' own step, each with why:
    /// `file name: declaration name`.
    static let notTime: Set<String> = [
        // The unit helpers themselves: their names are the unit they convert.
        "Nanoseconds.swift: seconds", "Nanoseconds.swift: period", "Nanoseconds.swift: nanoseconds",
        // Every `period` bytes the same registers come again: a count of bytes.
        "I2CBus.swift: period",
        // The signal processing's step over one sample: seconds stay a Double where the maths
        // integrates over them (the loop hands `TickContext.interval` to callers as a Duration).
        "TiltController.swift: dt", "TiltEstimator.swift: dt",
    ]

    /// `file name: declaration name` → where it was seen, for every numeric span at the public edge.
    static func numericSpans() throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        for target in libraryTargets {
            let folder = URL(fileURLWithPath: packageRoot).appendingPathComponent("Sources/\(target)")
            guard let walker = FileManager.default.enumerator(atPath: folder.path) else {
                XCTFail("no sources in \(folder.path)"); continue
            }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let path = folder.appendingPathComponent(relative).path
                let text = try String(contentsOfFile: path, encoding: .utf8)
                for (key, places) in try numericSpans(in: text, path: "Sources/\(target)/\(relative)") {
                    found[key, default: []] += places
                }
            }
        }
        return found
    }

    /// The numeric spans at the public edge of one source file's `text`, keyed `file name: name`.
    static func numericSpans(in text: String, path: String) throws -> [String: [String]] {
        let spanName = try NSRegularExpression(pattern: "(?i)(seconds|duration|interval|timeout|period|delay|after|span)|^ms$|Ms$|^ms[A-Z]")
        let caseSensitiveMs = try NSRegularExpression(pattern: "^ms$|Ms$|^ms[A-Z]")
        let pair = try NSRegularExpression(pattern: #"(\w+)(?:\s+(\w+))?\s*:\s*\[?(?:Double|Float|Int|Int32|Int64|UInt32|UInt64|TimeInterval)\b\]?\??"#)
        let publicDecl = try NSRegularExpression(pattern: #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\b"#)
        let caseDecl = try NSRegularExpression(pattern: #"^\s*case\s+\w+\("#)
        let enumDecl = try NSRegularExpression(pattern: #"\benum\s+\w+"#)
        let member = try NSRegularExpression(pattern: #"\b(func|init|subscript|var|let)\b"#)
        func matches(_ re: NSRegularExpression, _ s: String) -> Bool {
            re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
        }
        func isSpan(_ name: String) -> Bool {
            if name == "dt" { return true }
            if name == "_" || name == "t" || name.hasSuffix("G") { return false }
            if ["until", "start", "now", "timestamp"].contains(where: { name.lowercased().hasPrefix($0) }) { return false }
            // "ms" only as a word of its own: `ms`, `…Ms`, `msX` (not `items`, `atoms`).
            let lower = spanName.firstMatch(in: name, range: NSRange(name.startIndex..., in: name))
            guard let lower else { return false }
            return lower.range(at: 1).location != NSNotFound || matches(caseSensitiveMs, name)
        }

        var found: [String: [String]] = [:]
        let lines = text.components(separatedBy: "\n")
        let fileName = (path as NSString).lastPathComponent
        var inPublicEnum = false
        for (i, line) in lines.enumerated() {
            if matches(enumDecl, line) { inPublicEnum = matches(publicDecl, line) }
            let isMember = matches(publicDecl, line)
            guard isMember || (inPublicEnum && matches(caseDecl, line)) else { continue }
            // The declaration up to its body: all of a parameter list over several lines.
            var header = ""
            var depth = 0, j = i
            while j < lines.count {
                header += lines[j] + "\n"
                depth += lines[j].filter { $0 == "(" }.count - lines[j].filter { $0 == ")" }.count
                if depth <= 0 { break }
                j += 1
            }
            if let brace = header.firstIndex(of: "{") { header = String(header[..<brace]) }
            if isMember, !matches(member, header) { continue }
            for m in pair.matches(in: header, range: NSRange(header.startIndex..., in: header)) {
                for group in 1...2 {
                    guard let r = Range(m.range(at: group), in: header) else { continue }
                    let name = String(header[r])
                    if isSpan(name) {
                        found["\(fileName): \(name)", default: []].append("\(path):\(i + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        return found
    }

    func testNoPublicSpanIsANumber() throws {
        let found = try Self.numericSpans()
        let offenders = found.filter { !Self.notTime.contains($0.key) }
        XCTAssert(offenders.isEmpty, """
            public spans of time typed as numbers (make them Duration, convert inside):
            \(offenders.values.flatMap { $0 }.sorted().joined(separator: "\n"))
            """)
    }

    /// The scan finds what it looks for, in the sources (numbers that are not time, spans made
    /// `package`) and in a sample with each kind of declaration it must and must not report.
    func testTheScanSeesSpans() throws {
        let found = try Self.numericSpans()
        XCTAssertNotNil(found["I2CBus.swift: period"], "a case of a public enum: \(found.keys.sorted())")
        XCTAssertNotNil(found["Nanoseconds.swift: seconds"], "a public function's parameter")
        XCTAssertNil(found["MotionScript.swift: seconds"], "a motion script's segments take Durations")
        XCTAssertNil(found["CalibrationError.swift: seconds"], "captureTimedOut(after:) takes a Duration")
        XCTAssertNil(found["HapticEffect.swift: ms"], "HapticEffect.pulse takes a Duration")

        let sample = """
            public struct Settings {
                /// Kept to the nanosecond.
                public var timeout: Duration
                public var retryDelayMs: Double
            public var dt: Double
                package var holdSeconds: Double
                public init(interval: Duration, items: Int,
                            graceSeconds: Double = 1) {}
            }
            public enum Step {
                case wait(pose: Int,
                          seconds: Double)
                case go(Duration)
            }
            enum Hidden { case nap(seconds: Double) }
            """
        let spans = try Self.numericSpans(in: sample, path: "Sample.swift")
        XCTAssertEqual(Set(spans.keys), ["Sample.swift: retryDelayMs", "Sample.swift: dt", "Sample.swift: graceSeconds", "Sample.swift: seconds"])
        XCTAssertNil(found["FixedRateScheduler.swift: latenessNanoseconds"], "package; TickContext.lateness is a Duration")
        XCTAssertNil(found["MotionScript.swift: duration"], "MotionScript.duration is a Duration")
        XCTAssertNil(found["BoardDescription.swift: maxOnSeconds"], "package, not public")
        XCTAssertNil(found["BoardDescription.swift: cooldownMs"], "package, not public")
    }

    /// The settings converted here read and write the same numbers as before.
    func testSettingsSpansAreDurations() throws {
        var motor = BoardDescription.MotorSection(line: .init(chip: "gpiochip0", line: .offset(17)))
        XCTAssertEqual(motor.maxOn, .seconds(2))
        XCTAssertEqual(motor.minRest, .milliseconds(500))
        motor.maxOn = .milliseconds(750)
        XCTAssertEqual(motor.cap, MotorCapSettings(maxOnSeconds: 0.75, minRestSeconds: 0.5))

        let shake = ProfileShake(level: .firm, cooldown: .milliseconds(750))
        XCTAssertEqual(shake, ProfileShake(level: .firm, cooldownMs: 750))
        let json = String(decoding: try JSONEncoder().encode(shake), as: UTF8.self)
        XCTAssert(json.contains(#""cooldownMs":750"#), json)
        XCTAssertEqual(BoardDescription.ShakeSection(cooldown: .seconds(1)).cooldown, .milliseconds(1000))
        XCTAssertEqual(BoardDescription.ShakeSection(cooldown: .seconds(1)), .init(cooldownMs: 1000))

        XCTAssertEqual(HapticEffect.pulse(.milliseconds(150)), .pulse(ms: 150))
        XCTAssertEqual(HapticEffect.buzz.waveform.timings, [.milliseconds(400)])

        let late = TickContext(index: 0, deadline: 1_000, wakeTime: 46_000, dt: 0.01, missedTicks: 0)
        XCTAssertEqual(late.lateness, .microseconds(45))
        XCTAssertEqual(late.interval, .milliseconds(10))
        XCTAssertEqual(TickContext(index: 0, deadline: 9_000, wakeTime: 1_000, dt: 0.01, missedTicks: 0).lateness, .zero)
    }
}
