import Foundation
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardSimulator

/// Board file format (JSON; every key not listed here is an error, to catch typos):
///
/// - `name`: string, required.
/// - `sensor` (required): `chip` a name in `ChipRegistry` (`"mpu6050"`, `"adxl345"`, …); `bus`
///   `"/dev/i2c-N"` | `"simulated"`; `address` `"0x68"` or an integer, one of the chip's
///   `addresses` (default the first); `accelRangeG` one of its `accelRangesG` (default 2);
///   `gyroRangeDps` one of its gyroscope's `rangesDps` (chips with a gyro only, default 500);
///   `rateHz` within its `rateRangeHz` (default 100); `fifo` bool (default false).
/// - `motor` (optional): `chip` label (`pinctrl-bcm2711`), name (`gpiochip0`) or path; `line` offset
///   or line name (`"GPIO17"`); `activeLow` bool; `shakeEffect` preset name or `pulse:<ms>`;
///   `maxOnMs`, `minRestMs` 50…60000 (milliseconds, as every short span of the file: `pulse:<ms>`,
///   `shake.cooldownMs`, `simulation.motorNoise`'s; the older `maxOnSeconds`, `minRestSeconds` in
///   seconds are still read).
/// - `mount`: 3×3 rows, a rotation (orthonormal, determinant +1); default identity.
/// - `simulation` (only with bus `"simulated"`): `script` built-in name or path, `trace` CSV path
///   (not both), `noise` bool, `seed` integer ≥ 0, `whoAmI` `"0x70"` or integer, `zeroGOffsetMg`
///   [x,y,z], `scaleError` [x,y,z] fractions, `motorLog` path, `part` `"typical"`/`"worst"`/object,
///   `faults` list of `{"at", "kind", "seconds"}`, `motorNoise` `{"errorRate", "switchMs",
///   "brownOutMs", "glitchRate", "idleErrorRate"}`. Relative paths resolve against the board file's folder.
/// - `shake` (optional): `thresholdG` > 0 (each half-cycle's linear acceleration), `minReversals`
///   integer 1…20 (reversals that make a shake), `minFraction` 0…1 (share of the time swinging),
///   `cooldownMs` 0…60000. `minDurationMs` is rejected: one burst no longer starts a shake.
/// - `interrupt` (optional): `chip`, `line` as for `motor`.
extension BoardDescription {
    /// Reads and validates a board file; a missing, unreadable or invalid file throws `BoardFileError`.
    public static func load(path: String) throws -> BoardDescription {
        let bytes: [UInt8]?
        do {
            bytes = try AtomicFile.read(path: path)
        } catch let error as AtomicFileError {
            throw BoardFileError(file: path, key: "", problem: .unreadable(errno: error.errno), errno: error.errno)
        } catch let error as NotARegularFile {
            throw BoardFileError(file: path, key: "", problem: .notRegularFile(kind: error.kind), fileProblem: .notRegular)
        } catch let error as FileTooLarge {
            throw BoardFileError(file: path, key: "", problem: .tooLarge(size: error.size, limit: error.limit), fileProblem: .tooLarge)
        }
        guard let bytes else {
            throw BoardFileError(file: path, key: "", problem: .noSuchFile, errno: ENOENT)
        }
        // A symlinked board file is its target: its relative paths start from the target's folder.
        return try BoardFileParser(source: path, anchor: SymlinkTarget.resolved(path)).parse(bytes)
    }

    /// Parses and validates board file contents; `source` names the file in messages and
    /// anchors relative paths.
    public static func parse(json: [UInt8], source: String) throws -> BoardDescription {
        try BoardFileParser(source: source).parse(json)
    }

    /// The board used when no board file is given: a simulated chip and a simulated motor line.
    package static func builtInSimulated(chip: ChipKind = .mpu6050, script: String = "flat") -> BoardDescription {
        BoardDescription(
            name: "simulated \(chip.partName) board",
            source: "built-in",
            sensor: SensorSection(chip: chip, bus: simulatedBus, address: chip.addresses[0]),
            motor: MotorSection(line: LineSelector(chip: "simulated", line: .offset(17))),
            simulation: SimulationSection(script: script, noise: true, seed: 1))
    }
}

/// Walks the JSON tree with the key path at hand, so every error names where it is.
struct BoardFileParser {
    let source: String
    /// The file relative paths start from: `source`, or the file a symlinked `source` names.
    var anchor: String

    init(source: String, anchor: String? = nil) {
        self.source = source
        self.anchor = anchor ?? source
    }

    func parse(_ bytes: [UInt8]) throws -> BoardDescription {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            let (detail, position) = jsonProblem(error, bytes: bytes)
            throw fail("", .invalidJSON(detail: detail, line: position?.line, column: position?.column))
        }
        if let problem = StrictJSON.problem(bytes) { throw fail(problem.key, .notStrictJSON(problem.kind)) }
        let top = try object(root, "")
        try onlyKeys(top, "", ["name", "sensor", "motor", "mount", "simulation", "shake", "interrupt"])

        guard let nameValue = top["name"] else { throw fail("name", .missing(.name)) }
        let name = try string(nameValue, "name")
        guard let sensorValue = top["sensor"] else {
            throw fail("sensor", .missing(.sensor))
        }
        let sensor = try parseSensor(sensorValue)
        var board = BoardDescription(name: name, source: source, sensor: sensor)
        if let v = top["motor"] { board.motor = try parseMotor(v) }
        if let v = top["mount"] { board.mount = try parseMount(v) }
        if let v = top["simulation"] {
            guard board.isSimulated else {
                throw fail("simulation", .simulationNeedsSimulatedBus)
            }
            board.simulation = try parseSimulation(v)
        } else if board.isSimulated {
            board.simulation = BoardDescription.SimulationSection()
        }
        if let v = top["shake"] { board.shake = try parseShake(v) }
        if let v = top["interrupt"] {
            let o = try object(v, "interrupt")
            try onlyKeys(o, "interrupt", ["chip", "line"])
            board.interrupt = BoardDescription.InterruptSection(line: try lineSelector(o, "interrupt"))
        }
        return board
    }

    // MARK: - Sections

    private func parseSensor(_ value: Any) throws -> BoardDescription.SensorSection {
        let o = try object(value, "sensor")
        try onlyKeys(o, "sensor", ["chip", "bus", "address", "accelRangeG", "gyroRangeDps", "rateHz", "fifo"])
        let chipNames = ChipKind.allCases.map(\.rawValue)
        guard let chipValue = o["chip"] else { throw fail("sensor.chip", .missing(.chip(choices: chipNames))) }
        let chipText = try string(chipValue, "sensor.chip")
        guard let chip = ChipKind(rawValue: chipText) else {
            throw notAllowed("sensor.chip", chipValue, .chip(choices: chipNames))
        }
        let description = chip.details
        guard let busValue = o["bus"] else {
            throw fail("sensor.bus", .missing(.bus))
        }
        let bus = try string(busValue, "sensor.bus")
        guard bus == BoardDescription.simulatedBus || isI2CDevicePath(bus) else {
            throw notAllowed("sensor.bus", busValue, .bus)
        }
        var sensor = BoardDescription.SensorSection(chip: chip, bus: bus, address: chip.addresses[0])
        if let v = o["address"] {
            guard let a = byteValue(v), chip.addresses.contains(a) else {
                throw notAllowed("sensor.address", v, .address(part: chip.partName, addresses: chip.addresses))
            }
            sensor.address = a
        }
        if let v = o["accelRangeG"] {
            let allowed = BoardFileError.Problem.Allowed.oneOf(description.accelRangesG)
            let r = try integer(v, "sensor.accelRangeG", allowed: allowed)
            guard description.accelRangesG.contains(r) else { throw notAllowed("sensor.accelRangeG", v, allowed) }
            sensor.accelRangeG = r
        }
        if let v = o["gyroRangeDps"] {
            guard let gyroscope = description.gyroscope else {
                throw fail("sensor.gyroRangeDps", .noGyroscope(part: chip.partName))
            }
            let allowed = BoardFileError.Problem.Allowed.oneOf(gyroscope.rangesDps)
            let r = try integer(v, "sensor.gyroRangeDps", allowed: allowed)
            guard gyroscope.rangesDps.contains(r) else { throw notAllowed("sensor.gyroRangeDps", v, allowed) }
            sensor.gyroRangeDps = r
        }
        if let v = o["rateHz"] {
            let range = description.rateRangeHz
            let allowed = BoardFileError.Problem.Allowed.rateHz(part: chip.partName, low: range.lowerBound, high: range.upperBound)
            let r = try number(v, "sensor.rateHz", allowed: allowed)
            guard range.contains(r) else { throw notAllowed("sensor.rateHz", v, allowed) }
            sensor.rateHz = r
        }
        if let v = o["fifo"] { sensor.fifo = try bool(v, "sensor.fifo") }
        return sensor
    }

    private func parseMotor(_ value: Any) throws -> BoardDescription.MotorSection {
        let o = try object(value, "motor")
        try onlyKeys(o, "motor", ["chip", "line", "activeLow", "shakeEffect", "maxOnMs", "minRestMs"],
                     alsoRead: ["maxOnSeconds", "minRestSeconds"])
        var motor = BoardDescription.MotorSection(line: try lineSelector(o, "motor"))
        if let v = o["activeLow"] { motor.activeLow = try bool(v, "motor.activeLow") }
        if let v = o["shakeEffect"] {
            let text = try string(v, "motor.shakeEffect")
            do {
                motor.shakeEffect = try HapticEffect.parse(name: text)
            } catch let error as HapticEffectError {
                throw fail("motor.shakeEffect", .badShakeEffect(error))
            }
        }
        if let s = try capSpan(o, ms: "maxOnMs", seconds: "maxOnSeconds") { motor.maxOnSeconds = s }
        if let s = try capSpan(o, ms: "minRestMs", seconds: "minRestSeconds") { motor.minRestSeconds = s }
        return motor
    }

    /// A span of the motor's cap, in seconds: from its key in milliseconds, or from the older key
    /// in seconds (still read); both at once is an error.
    private func capSpan(_ o: [String: Any], ms msKey: String, seconds secondsKey: String) throws -> Double? {
        let range = MotorCapSettings.allowedSeconds
        if o[msKey] != nil, o[secondsKey] != nil {
            throw fail("motor.\(msKey)", .keyAndOlderKey(older: secondsKey))
        }
        if o[secondsKey] != nil {
            let allowed = BoardFileError.Problem.Allowed.span(low: range.lowerBound, high: range.upperBound, unit: .seconds)
            return try bounded(o, "motor", secondsKey, allowed, accept: range.contains)
        }
        let ms = (range.lowerBound * 1000)...(range.upperBound * 1000)
        let allowed = BoardFileError.Problem.Allowed.span(low: ms.lowerBound, high: ms.upperBound, unit: .milliseconds)
        return try bounded(o, "motor", msKey, allowed, accept: ms.contains).map { $0 / 1000 }
    }

    private func lineSelector(_ o: [String: Any], _ path: String) throws -> BoardDescription.LineSelector {
        guard let chipValue = o["chip"] else {
            throw fail("\(path).chip", .missing(.gpioChip))
        }
        let chip = try string(chipValue, "\(path).chip")
        guard let lineValue = o["line"] else {
            throw fail("\(path).line", .missing(.gpioLine))
        }
        let allowed = BoardFileError.Problem.Allowed.line
        if let text = lineValue as? String, !isNumber(lineValue) {
            guard !text.isEmpty else { throw notAllowed("\(path).line", lineValue, allowed) }
            return .init(chip: chip, line: .name(text))
        }
        let offset = try integer(lineValue, "\(path).line", allowed: allowed)
        guard offset >= 0 && offset < 10_000 else { throw notAllowed("\(path).line", lineValue, allowed) }
        return .init(chip: chip, line: .offset(offset))
    }

    private func parseMount(_ value: Any) throws -> Matrix3 {
        let shape = BoardFileError.Problem.Allowed.mountShape
        guard let rows = value as? [Any], rows.count == 3 else { throw notAllowed("mount", value, shape) }
        var numbers: [[Double]] = []
        for row in rows {
            guard let r = row as? [Any], r.count == 3 else { throw notAllowed("mount", value, shape) }
            var out: [Double] = []
            for x in r {
                guard isNumber(x), let d = (x as? NSNumber)?.doubleValue, d.isFinite else {
                    throw notAllowed("mount", value, shape)
                }
                out.append(d)
            }
            numbers.append(out)
        }
        guard let m = Matrix3(rowArrays: numbers) else { throw notAllowed("mount", value, shape) }
        let product = m * m.transposed
        let tolerance = 1e-6
        for (i, row) in [product.r0, product.r1, product.r2].enumerated() {
            for j in 0..<3 where Swift.abs(row[j] - (i == j ? 1 : 0)) > tolerance {
                throw fail("mount", .notARotation(value: render(value)))
            }
        }
        if m.determinant < 0 {
            throw fail("mount", .mirrorImage(value: render(value)))
        }
        return m
    }

    private func parseSimulation(_ value: Any) throws -> BoardDescription.SimulationSection {
        let o = try object(value, "simulation")
        try onlyKeys(o, "simulation", ["script", "trace", "noise", "seed", "whoAmI", "zeroGOffsetMg", "scaleError", "motorLog", "part", "faults",
                                          "motorNoise"])
        var sim = BoardDescription.SimulationSection()
        if let v = o["script"] {
            let s = try nonEmptyString(v, "simulation.script", allowed: .script)
            // A bare name is a built-in script; anything that looks like a path is a file.
            sim.script = (s.contains("/") || s.hasSuffix(".json")) ? resolve(s) : s
        }
        if let v = o["trace"] {
            guard sim.script == nil else {
                throw fail("simulation.trace", .scriptAndTrace)
            }
            sim.trace = resolve(try nonEmptyString(v, "simulation.trace", allowed: .tracePath))
        }
        if let v = o["noise"] { sim.noise = try bool(v, "simulation.noise") }
        if let v = o["seed"] {
            let allowed = BoardFileError.Problem.Allowed.seed
            let d = try number(v, "simulation.seed", allowed: allowed)
            // Beyond 2^53 a JSON number no longer holds every integer exactly.
            guard d >= 0, d == d.rounded(), d <= 9_007_199_254_740_992 else {
                throw notAllowed("simulation.seed", v, allowed)
            }
            let seed = UInt64(d)
            sim.seed = seed
        }
        if let v = o["whoAmI"] {
            guard let b = byteValue(v) else {
                throw notAllowed("simulation.whoAmI", v, .byte)
            }
            sim.whoAmI = b
        }
        if let v = o["zeroGOffsetMg"] {
            sim.zeroGOffsetMg = try vector(v, "simulation.zeroGOffsetMg", limit: 1000,
                                           allowed: .vector(.milliG, limit: 1000))
        }
        if let v = o["scaleError"] {
            sim.scaleError = try vector(v, "simulation.scaleError", limit: 0.5,
                                        allowed: .vector(.fraction, limit: 0.5))
        }
        if let v = o["motorLog"] {
            sim.motorLog = resolve(try nonEmptyString(v, "simulation.motorLog", allowed: .filePath))
        }
        if let v = o["faults"] { sim.faults = try parseFaults(v) }
        if let v = o["part"] { sim.part = try parsePart(v) }
        if let v = o["motorNoise"] { sim.motorNoise = try parseMotorNoise(v) }
        return sim
    }

    /// `{"errorRate", "switchMs", "brownOutMs", "glitchRate", "idleErrorRate"}`, each optional (0).
    private func parseMotorNoise(_ value: Any) throws -> SimulatedMotorNoise {
        let path = "simulation.motorNoise"
        let o = try object(value, path)
        try onlyKeys(o, path, ["errorRate", "switchMs", "brownOutMs", "glitchRate", "idleErrorRate"])
        let rate = BoardFileError.Problem.Allowed.chance
        var noise = SimulatedMotorNoise()
        noise.errorRate = try bounded(o, path, "errorRate", rate) { (0...1).contains($0) } ?? 0
        noise.glitchRate = try bounded(o, path, "glitchRate", rate) { (0...1).contains($0) } ?? 0
        noise.idleErrorRate = try bounded(o, path, "idleErrorRate", rate) { (0...1).contains($0) } ?? 0
        noise.switchSeconds = (try bounded(o, path, "switchMs", .span(low: 0, high: 1000, unit: .milliseconds)) { (0...1000).contains($0) } ?? 0) / 1000
        noise.brownOutSeconds = (try bounded(o, path, "brownOutMs", .span(low: 0, high: 10_000, unit: .milliseconds)) { (0...10_000).contains($0) } ?? 0) / 1000
        return noise
    }

    /// `[{"at": s, "kind": "nack"|"eio"|"reset"|"unplug", "seconds": s}, …]`; `seconds` is required
    /// except for `reset`, which is instantaneous.
    private func parseFaults(_ value: Any) throws -> [SimulatedFault] {
        let kinds = SimulatedFault.Kind.allCases.map(\.rawValue)
        guard let items = value as? [Any] else {
            throw notAllowed("simulation.faults", value, .faultList(kinds: kinds))
        }
        guard items.count <= Self.maxFaults else {
            throw fail("simulation.faults", .tooManyFaults(count: items.count, limit: Self.maxFaults))
        }
        return try items.indices.map { i in
            let path = "simulation.faults[\(i)]"
            let o = try object(items[i], path)
            try onlyKeys(o, path, ["at", "kind", "seconds"])
            guard let kindValue = o["kind"] else { throw fail("\(path).kind", .missing(.faultKind(kinds: kinds))) }
            guard let kind = SimulatedFault.Kind(rawValue: try string(kindValue, "\(path).kind")) else {
                throw notAllowed("\(path).kind", kindValue, .faultKind(kinds: kinds))
            }
            guard let at = try bounded(o, path, "at", .secondsSinceOpen(low: 0, high: 86_400), accept: { (0...86_400).contains($0) }) else {
                throw fail("\(path).at", .missing(.faultStart))
            }
            let seconds = try bounded(o, path, "seconds", .positiveSeconds(high: 3600)) { $0 > 0 && $0 <= 3600 }
            if kind == .reset {
                guard seconds == nil else { throw fail("\(path).seconds", .resetTakesNoTime) }
                return SimulatedFault(at: at, kind: kind)
            }
            guard let seconds else { throw fail("\(path).seconds", .missing(.faultLength(kind: kind.rawValue))) }
            return SimulatedFault(at: at, kind: kind, seconds: seconds)
        }
    }

    /// More would only slow every transaction down.
    static let maxFaults = 100


    private func parsePart(_ value: Any) throws -> BoardDescription.SimulationSection.Part {
        let partKeys = ["gyroBiasDps", "gyroBiasTempcoDpsPerC", "zeroGOffsetMg", "zeroGTempcoMgPerC", "warmUpC", "warmUpSeconds"]
        let allowed = BoardFileError.Problem.Allowed.part(keys: partKeys)
        if let name = value as? String {
            switch name {
            case "typical": return .typical
            case "worst": return .worst
            default: throw notAllowed("simulation.part", value, allowed)
            }
        }
        guard let o = value as? [String: Any] else { throw notAllowed("simulation.part", value, allowed) }
        try onlyKeys(o, "simulation.part", partKeys)
        var p = BoardDescription.SimulationSection.PartValues()
        if let v = o["gyroBiasDps"] {
            p.gyroBiasDps = try vector(v, "simulation.part.gyroBiasDps", limit: 250, allowed: .vector(.degreesPerSecond, limit: 250))
        }
        if let v = o["gyroBiasTempcoDpsPerC"] {
            p.gyroBiasTempcoDpsPerC = try vector(v, "simulation.part.gyroBiasTempcoDpsPerC", limit: 5,
                                                 allowed: .vector(.degreesPerSecondPerCelsius, limit: 5))
        }
        if let v = o["zeroGOffsetMg"] {
            p.zeroGOffsetMg = try vector(v, "simulation.part.zeroGOffsetMg", limit: 1000, allowed: .vector(.milliG, limit: 1000))
        }
        if let v = o["zeroGTempcoMgPerC"] {
            p.zeroGTempcoMgPerC = try vector(v, "simulation.part.zeroGTempcoMgPerC", limit: 20,
                                             allowed: .vector(.milliGPerCelsius, limit: 20))
        }
        if let v = o["warmUpC"] {
            let d = try number(v, "simulation.part.warmUpC", allowed: .celsius(low: 0, high: 60))
            guard d >= 0, d <= 60 else { throw notAllowed("simulation.part.warmUpC", v, .celsius(low: 0, high: 60)) }
            p.warmUpC = d
        }
        if let v = o["warmUpSeconds"] {
            let d = try number(v, "simulation.part.warmUpSeconds", allowed: .seconds(low: 1, high: 3600))
            guard d >= 1, d <= 3600 else { throw notAllowed("simulation.part.warmUpSeconds", v, .seconds(low: 1, high: 3600)) }
            p.warmUpSeconds = d
        }
        return .explicit(p)
    }

    private func parseShake(_ value: Any) throws -> BoardDescription.ShakeSection {
        let o = try object(value, "shake")
        if o["minDurationMs"] != nil {
            throw fail("shake.minDurationMs", .retiredMinDuration)
        }
        try onlyKeys(o, "shake", ["thresholdG", "minReversals", "minFraction", "cooldownMs"])
        var shake = BoardDescription.ShakeSection()
        shake.thresholdG = try bounded(o, "shake", "thresholdG", .positiveG(high: 16)) { $0 > 0 && $0 <= 16 }
        shake.minFraction = try bounded(o, "shake", "minFraction", .fraction) { (0...1).contains($0) }
        shake.minReversals = try bounded(o, "shake", "minReversals", .integerRange(low: 1, high: 20)) {
            (1...20).contains($0) && $0 == $0.rounded()
        }.map { Int($0) }
        shake.cooldownMs = try bounded(o, "shake", "cooldownMs", .span(low: 0, high: 60_000, unit: .milliseconds)) { (0...60_000).contains($0) }
        return shake
    }

    // MARK: - Typed readers

    private func object(_ v: Any, _ path: String) throws -> [String: Any] {
        guard let o = v as? [String: Any] else {
            if path.isEmpty { throw fail("", .topLevelNotObject(found: render(v))) }
            throw notAllowed(path, v, .object)
        }
        return o
    }

    /// Throws for the first key neither in `allowed` (the keys an error lists) nor in `alsoRead`
    /// (older names still read, not listed).
    private func onlyKeys(_ o: [String: Any], _ path: String, _ allowed: [String], alsoRead: [String] = []) throws {
        for key in o.keys.sorted() where !allowed.contains(key) && !alsoRead.contains(key) {
            let full = path.isEmpty ? String(key.prefix(80)) : "\(path).\(key.prefix(80))"
            throw fail(full, .unknownKey(section: path, allowed: allowed))
        }
    }

    private func string(_ v: Any, _ path: String) throws -> String {
        guard let s = v as? String, !isNumber(v) else { throw notAllowed(path, v, .string) }
        guard !s.isEmpty else { throw notAllowed(path, v, .nonEmptyString) }
        return s
    }

    private func nonEmptyString(_ v: Any, _ path: String, allowed: BoardFileError.Problem.Allowed) throws -> String {
        guard let s = v as? String, !isNumber(v), !s.isEmpty else { throw notAllowed(path, v, allowed) }
        return s
    }

    private func bool(_ v: Any, _ path: String) throws -> Bool {
        guard isBool(v), let b = v as? Bool else { throw notAllowed(path, v, .bool) }
        return b
    }

    private func number(_ v: Any, _ path: String, allowed: BoardFileError.Problem.Allowed) throws -> Double {
        guard isNumber(v), let d = (v as? NSNumber)?.doubleValue, d.isFinite else { throw notAllowed(path, v, allowed) }
        return d
    }

    /// The number at `key` in the `section` object `o`, nil when absent; refused unless `accept`.
    private func bounded(_ o: [String: Any], _ section: String, _ key: String, _ allowed: BoardFileError.Problem.Allowed,
                         accept: (Double) -> Bool) throws -> Double? {
        guard let v = o[key] else { return nil }
        let path = section + "." + key
        let x = try number(v, path, allowed: allowed)
        guard accept(x) else { throw notAllowed(path, v, allowed) }
        return x
    }

    private func integer(_ v: Any, _ path: String, allowed: BoardFileError.Problem.Allowed) throws -> Int {
        let d = try number(v, path, allowed: allowed)
        guard d == d.rounded(), Swift.abs(d) < 1e9 else { throw notAllowed(path, v, allowed) }
        return Int(d)
    }

    private func vector(_ v: Any, _ path: String, limit: Double, allowed: BoardFileError.Problem.Allowed) throws -> Vector3 {
        guard let a = v as? [Any], a.count == 3 else { throw notAllowed(path, v, allowed) }
        var c: [Double] = []
        for x in a {
            guard isNumber(x), let d = (x as? NSNumber)?.doubleValue, d.isFinite, Swift.abs(d) <= limit else {
                throw notAllowed(path, v, allowed)
            }
            c.append(d)
        }
        return Vector3(c[0], c[1], c[2])
    }

    /// `"0x68"` or an integer 0…255.
    private func byteValue(_ v: Any) -> UInt8? {
        if isNumber(v) {
            guard let d = (v as? NSNumber)?.doubleValue, d == d.rounded(), d >= 0, d <= 255 else { return nil }
            return UInt8(d)
        }
        guard let s = v as? String else { return nil }
        let lower = s.lowercased()
        guard lower.hasPrefix("0x"), lower.count > 2, lower.count <= 4 else { return nil }
        return UInt8(lower.dropFirst(2), radix: 16)
    }

    // JSONSerialization hands back NSNumber for both numbers and booleans; the Objective-C
    // type code tells them apart ("c" is a boolean).
    private func isBool(_ v: Any) -> Bool {
        guard let n = v as? NSNumber, !(v is String) else { return false }
        return String(cString: n.objCType) == "c"
    }

    private func isNumber(_ v: Any) -> Bool {
        guard let n = v as? NSNumber, !(v is String) else { return false }
        return String(cString: n.objCType) != "c"
    }

    private func isI2CDevicePath(_ s: String) -> Bool {
        let prefix = "/dev/i2c-"
        guard s.hasPrefix(prefix) else { return false }
        let digits = s.dropFirst(prefix.count)
        return !digits.isEmpty && digits.count <= 4 && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    private func resolve(_ path: String) -> String {
        guard !path.hasPrefix("/"), let slash = anchor.lastIndex(of: "/") else { return path }
        return String(anchor[...slash]) + path
    }

    // MARK: - Messages

    private func fail(_ key: String, _ problem: BoardFileError.Problem) -> BoardFileError {
        BoardFileError(file: source, key: key, problem: problem)
    }

    private func notAllowed(_ key: String, _ value: Any, _ allowed: BoardFileError.Problem.Allowed) -> BoardFileError {
        fail(key, .notAllowed(value: render(value), allowed: allowed))
    }

    /// A JSON value as written in the file, compact; a huge value is walked only to a little past
    /// `WrittenValue.quoteLimit` characters, so it never makes a huge error (the words cut it there).
    private func render(_ v: Any) -> WrittenValue {
        var parts: [WrittenValue.Part] = []
        var count = 0
        append(v, to: &parts, count: &count)
        return WrittenValue(parts)
    }

    /// Appends `v` to `parts`, stopping early once past the quote limit: a huge array is never
    /// walked whole. `count` is the characters so far, an object counted as one.
    private func append(_ v: Any, to parts: inout [WrittenValue.Part], count: inout Int) {
        let limit = WrittenValue.quoteLimit
        guard count <= limit else { return }
        func add(_ text: String) { parts.append(.text(text)); count += text.count }
        if isBool(v) { add((v as? Bool) == true ? "true" : "false") }
        else if isNumber(v), let n = v as? NSNumber { add(format(n.doubleValue)) }
        else if let s = v as? String { add("\"\(s.prefix(limit + 1))\"") }
        else if v is NSNull { add("null") }
        else if let a = v as? [Any] {
            add("[")
            for (i, element) in a.enumerated() {
                guard count <= limit else { break }
                if i > 0 { add(",") }
                append(element, to: &parts, count: &count)
            }
            add("]")
        }
        else if v is [String: Any] { parts.append(.object); count += 1 }
        else { add("\(v)") }
    }

    private func format(_ d: Double) -> String {
        if d == d.rounded() && Swift.abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    /// The parser's report, its "around character N" turned into a line and column.
    private func jsonProblem(_ error: Error, bytes: [UInt8]) -> (String, (line: Int, column: Int)?) {
        let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        guard let range = detail.range(of: "character ") else { return (detail, nil) }
        let digits = detail[range.upperBound...].prefix(while: { $0.isNumber })
        guard let offset = Int(digits) else { return (detail, nil) }
        var line = 1, column = 1
        for b in bytes.prefix(offset) {
            if b == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        let base = detail.prefix(upTo: range.lowerBound)
            .replacingOccurrences(of: " around ", with: "").trimmingCharacters(in: .whitespaces)
        return (base, (line, column))
    }
}

/// JSON that parses but is not strict (RFC 8259 §4): what `StrictJSON` finds.
public enum StrictJSONProblem: Sendable, Equatable {
    /// A comma before `}` or `]` (the closer), at the closer's line and column.
    case commaBefore(Character, line: Int, column: Int)
    /// A key a second time in one object, at the second one's line and column.
    case keyTwice(line: Int, column: Int)
}

/// What JSONSerialization lets through and RFC 8259 does not (or leaves to the reader): a comma
/// before `}` or `]`, and a key twice in one object (§4: names SHOULD be unique; which one wins is
/// undefined, so a board file with one is refused). A single pass over the bytes of a document
/// already parsed, with its own stack (no recursion), so any input is safe.
package enum StrictJSON {
    /// The first problem found: where (`key`, a dotted path) and what.
    package struct Problem: Equatable, Sendable {
        /// Dotted key path of the problem; empty at the top level.
        package var key: String
        /// What is wrong there.
        package var kind: StrictJSONProblem
        /// The problem `kind` at `key`.
        package init(key: String, kind: StrictJSONProblem) { self.key = key; self.kind = kind }
    }

    private struct Frame {
        var isObject: Bool
        var keys: Set<String> = []
        var expectKey = true
        var key: String?
        var index = 0
    }

    package static func problem(_ bytes: [UInt8]) -> Problem? {
        var stack: [Frame] = []
        var afterComma = false
        var i = 0
        func path(_ extra: String? = nil) -> String {
            var parts: [String] = []
            for f in stack {
                if f.isObject { if let k = f.key { parts.append(k) } } else { parts.append("[\(f.index)]") }
            }
            if let extra { parts.append(extra) }
            var out = ""
            for p in parts { out += p.hasPrefix("[") || out.isEmpty ? p : "." + p }
            return out
        }
        func position(_ offset: Int) -> (line: Int, column: Int) {
            var line = 1, column = 1
            for b in bytes[..<offset] { if b == 0x0A { line += 1; column = 1 } else { column += 1 } }
            return (line, column)
        }
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D:
                i += 1
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                stack.append(Frame(isObject: b == UInt8(ascii: "{")))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if afterComma {
                    let at = position(i)
                    return Problem(key: path(), kind: .commaBefore(Character(UnicodeScalar(b)), line: at.line, column: at.column))
                }
                _ = stack.popLast()
            case UInt8(ascii: ","):
                afterComma = true
                if var top = stack.popLast() {
                    if top.isObject { top.expectKey = true; top.key = nil } else { top.index += 1 }
                    stack.append(top)
                }
                i += 1
                continue
            case UInt8(ascii: "\""):
                let start = i
                i += 1
                while i < bytes.count && bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                let end = min(i, bytes.count - 1)
                if var top = stack.last, top.isObject, top.expectKey {
                    let raw = Array(bytes[start...end])
                    let name = (try? JSONSerialization.jsonObject(with: Data(raw), options: [.fragmentsAllowed])) as? String
                        ?? String(decoding: raw.dropFirst().dropLast(), as: UTF8.self)
                    if top.keys.contains(name) {
                        let shown = name.count > 80 ? String(name.prefix(79)) + "…" : name
                        let at = position(start)
                        return Problem(key: path(shown), kind: .keyTwice(line: at.line, column: at.column))
                    }
                    top.keys.insert(name)
                    top.key = name
                    top.expectKey = false
                    stack[stack.count - 1] = top
                }
            default:
                break
            }
            afterComma = false
            i += 1
        }
        return nil
    }
}
