import TiltboardLinux
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator

/// A board file (`Boards/*.json`): which sensor, where, which motor line, how it is mounted.
///
/// Parsed and validated by `BoardDescription.load(path:)` / `parse(json:source:)`; every
/// problem is reported as a `BoardFileError` naming the file, the key, the value and what is allowed.
public struct BoardDescription: Sendable, Equatable {
    /// The board's name (the file's `name`), shown in messages and used for its profile's file name.
    public var name: String
    /// Where the description came from (a path, or `built-in`), for messages.
    public var source: String
    /// The motion sensor: chip, bus, address and the settings its driver is configured with.
    public var sensor: SensorSection
    /// The vibration motor's GPIO line and haptic settings; nil on a board without a motor.
    public var motor: MotorSection?
    /// Maps sensor axes onto board axes (x right, y forward, z up): board = mount × sensor.
    public var mount: Matrix3
    /// Present when `sensor.bus` is `"simulated"`.
    package var simulation: SimulationSection?
    /// Shake detector settings over the detector's defaults.
    public var shake: ShakeSection
    /// The sensor's interrupt pin wired to a GPIO input, for wake-on-motion; nil when not wired.
    public var interrupt: InterruptSection?

    package init(name: String, source: String, sensor: SensorSection, motor: MotorSection? = nil,
                mount: Matrix3 = .identity, simulation: SimulationSection? = nil,
                shake: ShakeSection = ShakeSection(), interrupt: InterruptSection? = nil) {
        self.name = name; self.source = source; self.sensor = sensor; self.motor = motor
        self.mount = mount; self.simulation = simulation; self.shake = shake; self.interrupt = interrupt
    }

    package var isSimulated: Bool { sensor.bus == BoardDescription.simulatedBus }
    package static let simulatedBus = "simulated"

    /// The board file's `sensor` section: which chip, where it answers, and how it is configured.
    public struct SensorSection: Sendable, Equatable {
        /// The chip family (`"mpu6050"`, `"adxl345"`, …).
        public var chip: ChipKind
        /// `/dev/i2c-N` or `simulated`.
        public var bus: String
        /// The chip's 7-bit I²C address.
        public var address: UInt8
        /// Full-scale accelerometer range in g.
        public var accelRangeG: Int
        /// Full-scale gyroscope range in °/s (ignored by a chip without a gyroscope).
        public var gyroRangeDps: Int
        /// Output data rate in Hz, and the loop's rate.
        public var rateHz: Double
        /// Whether the driver collects samples in the chip's FIFO.
        public var fifo: Bool

        /// A sensor section with the board file's defaults for what is not given.
        public init(chip: ChipKind, bus: String, address: UInt8, accelRangeG: Int = 2,
                    gyroRangeDps: Int = 500, rateHz: Double = 100, fifo: Bool = false) {
            self.chip = chip; self.bus = bus; self.address = address; self.accelRangeG = accelRangeG
            self.gyroRangeDps = gyroRangeDps; self.rateHz = rateHz; self.fifo = fifo
        }

        /// The settings the sensor's driver is configured with (`MotionSensor.configure`).
        public var configuration: SensorConfiguration {
            SensorConfiguration(accelRangeG: accelRangeG, gyroRangeDps: gyroRangeDps, rateHz: rateHz, useFIFO: fifo)
        }
    }

    /// A GPIO line: chip by label (`pinctrl-bcm2711`), name (`gpiochip0`) or path; line by
    /// offset or name (`GPIO17`).
    public struct LineSelector: Sendable, Equatable {
        /// The GPIO chip: a name under /dev (`gpiochip0`) or its label.
        public var chip: String
        /// The line on that chip, by offset or by name.
        public var line: GPIOLineID
        /// A line `line` on GPIO chip `chip`.
        public init(chip: String, line: GPIOLineID) { self.chip = chip; self.line = line }
    }

    /// The board file's `motor` section: the vibration motor's line and its haptic settings.
    public struct MotorSection: Sendable, Equatable {
        /// The GPIO output line that drives the motor.
        public var line: LineSelector
        /// True when the line drives the motor at low level.
        public var activeLow: Bool
        /// Effect played on a shake, parsed from a preset name (`click`, `buzz`, …) or `pulse:150`.
        public var shakeEffect: HapticEffect
        /// Most on-time in one stretch, in seconds (see `MotorCapSettings`).
        package var maxOnSeconds: Double
        /// Off-time that ends a stretch, in seconds.
        package var minRestSeconds: Double

        /// Most on-time the motor may hold in one stretch (the board file's `motor.maxOnMs`; see
        /// `MotorCapSettings`), kept to the nanosecond.
        public var maxOn: Duration {
            get { .rounded(seconds: maxOnSeconds) }
            set { maxOnSeconds = newValue.inSeconds }
        }

        /// Off-time that ends a stretch (the board file's `motor.minRestMs`), kept to the nanosecond.
        public var minRest: Duration {
            get { .rounded(seconds: minRestSeconds) }
            set { minRestSeconds = newValue.inSeconds }
        }

        /// A motor section with the board file's defaults for what is not given: at most `maxOn` of
        /// on-time in one stretch, ended by `minRest` off.
        public init(line: LineSelector, activeLow: Bool = false, shakeEffect: HapticEffect = .pulse(.milliseconds(150)),
                    maxOn: Duration = .seconds(2), minRest: Duration = .milliseconds(500)) {
            self.init(line: line, activeLow: activeLow, shakeEffect: shakeEffect,
                      maxOnSeconds: maxOn.inSeconds, minRestSeconds: minRest.inSeconds)
        }

        /// A motor section with the cap's spans in seconds (the parser's and the tests' form).
        package init(line: LineSelector, activeLow: Bool = false, shakeEffect: HapticEffect = .pulse(.milliseconds(150)),
                     maxOnSeconds: Double, minRestSeconds: Double = 0.5) {
            self.line = line; self.activeLow = activeLow; self.shakeEffect = shakeEffect
            self.maxOnSeconds = maxOnSeconds; self.minRestSeconds = minRestSeconds
        }

        /// The on-time cap the motor's engine applies.
        public var cap: MotorCapSettings { MotorCapSettings(maxOnSeconds: maxOnSeconds, minRestSeconds: minRestSeconds) }
    }

    package struct SimulationSection: Sendable, Equatable {
        /// A built-in motion script name (`flat`, `demo`, `six-faces`, …) or a path to a script JSON file.
        package var script: String?
        /// A recorded CSV trace (`t,ax,ay,az[,gx,gy,gz]`) to replay instead of a script.
        package var trace: String?
        /// Noise, zero-g offset and scale error at data-sheet magnitudes (false: an ideal chip).
        package var noise: Bool
        package var seed: UInt64
        /// WHO_AM_I the simulated MPU-6050 answers with (clones: 0x70, 0x72, 0x98).
        package var whoAmI: UInt8?
        /// Injected zero-g offset in mg, overriding the seeded one.
        package var zeroGOffsetMg: Vector3?
        /// Injected scale error as fractions (0.02 = +2 %), overriding the seeded one.
        package var scaleError: Vector3?
        /// Appends every motor line change (`<seconds> <0|1>`) to this file.
        package var motorLog: String?
        /// Bus failures and chip resets to play, at seconds since the board opened.
        package var faults: [SimulatedFault]
        /// How far from ideal the simulated part is (with `noise`).
        package var part: Part = .typical
        /// What the motor does to the sensor's bus (`simulation.motorNoise`); nil: nothing.
        package var motorNoise: SimulatedMotorNoise?

        /// `simulation.part`: a typical part, one at the data sheets' limits, or given values.
        package enum Part: Sendable, Equatable {
            /// Errors drawn well inside the limits, no temperature drift, no warm-up.
            case typical
            /// Every offset and temperature coefficient at its data-sheet limit, a 10 °C warm-up.
            case worst
            /// The typical part with the given values in place of the drawn ones.
            case explicit(PartValues)
        }

        /// Explicit part values; nil keeps the typical part's.
        package struct PartValues: Sendable, Equatable {
            package var gyroBiasDps: Vector3?
            package var gyroBiasTempcoDpsPerC: Vector3?
            package var zeroGOffsetMg: Vector3?
            package var zeroGTempcoMgPerC: Vector3?
            package var warmUpC: Double?
            package var warmUpSeconds: Double?

            package init(gyroBiasDps: Vector3? = nil, gyroBiasTempcoDpsPerC: Vector3? = nil, zeroGOffsetMg: Vector3? = nil,
                        zeroGTempcoMgPerC: Vector3? = nil, warmUpC: Double? = nil, warmUpSeconds: Double? = nil) {
                self.gyroBiasDps = gyroBiasDps; self.gyroBiasTempcoDpsPerC = gyroBiasTempcoDpsPerC
                self.zeroGOffsetMg = zeroGOffsetMg; self.zeroGTempcoMgPerC = zeroGTempcoMgPerC
                self.warmUpC = warmUpC; self.warmUpSeconds = warmUpSeconds
            }
        }

        package init(script: String? = nil, trace: String? = nil, noise: Bool = true, seed: UInt64 = 1,
                    whoAmI: UInt8? = nil, zeroGOffsetMg: Vector3? = nil, scaleError: Vector3? = nil,
                    motorLog: String? = nil, faults: [SimulatedFault] = []) {
            self.script = script; self.trace = trace; self.noise = noise; self.seed = seed; self.whoAmI = whoAmI
            self.zeroGOffsetMg = zeroGOffsetMg; self.scaleError = scaleError; self.motorLog = motorLog
            self.faults = faults
        }
    }

    /// Shake detector settings; nil fields take the detector's defaults.
    public struct ShakeSection: Sendable, Equatable {
        /// Linear acceleration in g a stroke must exceed; nil keeps the detector's default.
        public var thresholdG: Double?
        /// The fraction of a window's strokes that must be strong; nil keeps the default.
        public var minFraction: Double?
        /// Direction reversals a shake needs; nil keeps the default.
        public var minReversals: Int?
        /// Milliseconds after a shake before the next may start; nil keeps the default.
        package var cooldownMs: Double?
        /// How long after a shake before the next may start (the board file's `shake.cooldownMs`);
        /// nil keeps the default.
        public var cooldown: Duration? {
            get { cooldownMs.map { .rounded(milliseconds: $0) } }
            set { cooldownMs = newValue?.inMilliseconds }
        }
        /// A shake section; every setting left nil keeps the detector's default.
        public init(thresholdG: Double? = nil, minFraction: Double? = nil, minReversals: Int? = nil,
                    cooldown: Duration? = nil) {
            self.init(thresholdG: thresholdG, minFraction: minFraction, minReversals: minReversals,
                      cooldownMs: cooldown?.inMilliseconds)
        }
        /// A shake section with the cooldown in milliseconds (the parser's and the tests' form).
        package init(thresholdG: Double? = nil, minFraction: Double? = nil, minReversals: Int? = nil,
                     cooldownMs: Double?) {
            self.thresholdG = thresholdG; self.minFraction = minFraction
            self.minReversals = minReversals; self.cooldownMs = cooldownMs
        }
    }

    /// The sensor's interrupt pin wired to a GPIO input.
    public struct InterruptSection: Sendable, Equatable {
        /// The GPIO input line the sensor's interrupt pin drives.
        public var line: LineSelector
        /// An interrupt section wired to `line`.
        public init(line: LineSelector) { self.line = line }
    }
}

/// A board file that cannot be used; the CLI exits 65. It carries the file, the key and a
/// `Problem` (with the value and what is allowed); the command line words it.
public struct BoardFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The board file's path, or its source name for a built-in board.
    public var file: String
    /// Dotted key path, e.g. `sensor.address`; empty for whole-file problems.
    public var key: String
    /// What is wrong with the file or with the key's value.
    public var problem: Problem
    /// The kernel's reason when the file could not be read (EACCES: exit 77, not 65).
    public var errno: Int32?
    /// What was wrong with the file itself (or the file at `key`), when that was the problem: its
    /// exit status is the one `FileProblem` gives.
    package var fileProblem: FileProblem?

    package init(file: String, key: String, problem: Problem, errno: Int32? = nil, fileProblem: FileProblem? = nil) {
        self.file = file; self.key = key; self.problem = problem; self.errno = errno
        self.fileProblem = fileProblem ?? errno.map { FileProblem(errno: $0) }
    }

    /// The structured form for logs: `BoardFileError(notAllowed…, file: …, key: …)`.
    public var description: String {
        "BoardFileError(\(problem), file: \(shownPath(file))\(key.isEmpty ? "" : ", key: \(key)"))"
    }

    /// What is wrong with a board file, with the values that say where and what.
    public enum Problem: Sendable, Equatable {
        /// The file could not be read; `errno` is the kernel's reason.
        case unreadable(errno: Int32)
        /// The path names something other than a regular file; `kind` is what it is (a folder, …).
        case notRegularFile(kind: FileType)
        /// The file is larger than a board file may be.
        case tooLarge(size: Int64, limit: Int)
        /// No file at the path.
        case noSuchFile
        /// JSON the parser refused; `detail` is the parser's own report, at `line` and `column` when it says where.
        case invalidJSON(detail: String, line: Int?, column: Int?)
        /// JSON that is valid but not strict: a trailing comma or a key twice.
        case notStrictJSON(StrictJSONProblem)
        /// The top level is not an object; `found` is the value as written.
        case topLevelNotObject(found: WrittenValue)
        /// A key not known in its section; `allowed` lists the keys that are (`section` empty at the top).
        case unknownKey(section: String, allowed: [String])
        /// A required key is absent.
        case missing(Required)
        /// A value that is not allowed; `value` is as written in the file (at most 80 characters).
        case notAllowed(value: WrittenValue, allowed: Allowed)
        /// A `simulation` section on a board whose bus is not `simulated`.
        case simulationNeedsSimulatedBus
        /// `sensor.gyroRangeDps` for a part without a gyroscope.
        case noGyroscope(part: String)
        /// A motor shake effect that does not parse.
        case badShakeEffect(HapticEffectError)
        /// A key given together with its older name `older`.
        case keyAndOlderKey(older: String)
        /// A mount matrix whose rows are not orthonormal; `value` as written.
        case notARotation(value: WrittenValue)
        /// A mount matrix with determinant -1; `value` as written.
        case mirrorImage(value: WrittenValue)
        /// Both `simulation.script` and `simulation.trace`.
        case scriptAndTrace
        /// More faults than the simulator takes.
        case tooManyFaults(count: Int, limit: Int)
        /// A `seconds` key on a reset fault, which takes no time.
        case resetTakesNoTime
        /// `shake.minDurationMs`, which no longer applies.
        case retiredMinDuration
        /// A named file (trace, script, motor log) that does not exist.
        case namedFileMissing(path: String)
        /// A named file that could not be read; `errno` is the kernel's reason.
        case namedFileUnreadable(path: String, errno: Int32)
        /// A named file that is not a regular file; `kind` is what it is.
        case namedFileNotRegular(path: String, kind: FileType)
        /// A named file larger than it may be.
        case namedFileTooLarge(path: String, size: Int64, limit: Int)
        /// A trace that is not UTF-8 text.
        case traceNotText(path: String)
        /// A trace or script file whose contents are refused; `underlying` says why.
        case badContents(path: String, underlying: UnderlyingError)
        /// A script that is neither built in nor a readable file; `builtIn` names the built-in scripts.
        case noSuchScript(path: String, builtIn: [String])
        /// Waking on motion asked of a board without an `interrupt` section.
        case noInterruptLine

        /// A required key's kind, which says what to give.
        public enum Required: Sendable, Equatable {
            /// The board's `name`.
            case name
            /// The `sensor` section.
            case sensor
            /// `sensor.chip`; `choices` are the chip names.
            case chip(choices: [String])
            /// `sensor.bus`.
            case bus
            /// A GPIO chip of a line section.
            case gpioChip
            /// A GPIO line of a line section.
            case gpioLine
            /// A fault's `kind`; `kinds` are the fault kinds.
            case faultKind(kinds: [String])
            /// A fault's `at`.
            case faultStart
            /// A fault's `seconds`; `kind` is the fault's kind.
            case faultLength(kind: String)
        }

        /// What a key allows, for a value that is not it.
        public enum Allowed: Sendable, Equatable {
            /// An object `{ … }`.
            case object
            /// A string in quotes.
            case string
            /// A string that is not empty.
            case nonEmptyString
            /// `true` or `false`.
            case bool
            /// One of the chip names.
            case chip(choices: [String])
            /// `/dev/i2c-N` or `simulated`.
            case bus
            /// One of the part's I²C addresses.
            case address(part: String, addresses: [UInt8])
            /// One of these integers.
            case oneOf([Int])
            /// A rate the part runs at, in Hz.
            case rateHz(part: String, low: Double, high: Double)
            /// A GPIO line offset or name.
            case line
            /// Three rows of three numbers.
            case mountShape
            /// A built-in script name or a script file path.
            case script
            /// A trace file path.
            case tracePath
            /// A file path.
            case filePath
            /// A seed: an integer from 0 to 2^53.
            case seed
            /// A byte such as `"0x68"`.
            case byte
            /// Three numbers of `quantity`, each within ±`limit`.
            case vector(Quantity, limit: Double)
            /// A list of faults; `kinds` are the fault kinds.
            case faultList(kinds: [String])
            /// One of the fault kinds.
            case faultKind(kinds: [String])
            /// `"typical"`, `"worst"` or an object of these keys.
            case part(keys: [String])
            /// A span from `low` to `high` in `unit`.
            case span(low: Double, high: Double, unit: SpanUnit)
            /// Seconds from `low` to `high` since the board opened.
            case secondsSinceOpen(low: Double, high: Double)
            /// More than 0 and at most `high` seconds.
            case positiveSeconds(high: Double)
            /// More than 0 and at most `high` g.
            case positiveG(high: Double)
            /// A probability from 0 to 1.
            case chance
            /// A fraction from 0 to 1.
            case fraction
            /// An integer from `low` to `high`.
            case integerRange(low: Int, high: Int)
            /// Degrees Celsius from `low` to `high`.
            case celsius(low: Double, high: Double)
            /// Seconds from `low` to `high`.
            case seconds(low: Double, high: Double)
        }

        /// The unit of a span.
        public enum SpanUnit: Sendable, Equatable {
            /// Milliseconds.
            case milliseconds
            /// Seconds.
            case seconds
        }

        /// The quantity of a vector setting.
        public enum Quantity: Sendable, Equatable {
            /// mg.
            case milliG
            /// A fraction (0.02 = +2 %).
            case fraction
            /// °/s.
            case degreesPerSecond
            /// °/s per °C.
            case degreesPerSecondPerCelsius
            /// mg per °C.
            case milliGPerCelsius
        }
    }

}

/// A value as a board file writes it, compact, for an error to quote: JSON text, with each object
/// in it kept as a mark that a program words for people. A program cuts the quote after
/// `quoteLimit` characters.
public struct WrittenValue: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// A run of JSON text, or an object left out.
    public enum Part: Sendable, Equatable {
        /// JSON text as written: numbers, strings in quotes, `true`, `null`, brackets and commas.
        case text(String)
        /// An object, its contents left out.
        case object
    }

    /// The parts in order; adjacent text is one part, and no part is empty text.
    public var parts: [Part]
    /// The characters a quote of a value shows before it is cut (and `…` added).
    public static let quoteLimit = 80

    /// A value of `parts`, adjacent text joined and empty text dropped.
    public init(_ parts: [Part]) {
        var joined: [Part] = []
        for part in parts {
            switch (part, joined.last) {
            case (.text(""), _): continue
            case let (.text(more), .text(text)?): joined[joined.count - 1] = .text(text + more)
            default: joined.append(part)
            }
        }
        self.parts = joined
    }

    /// A value that is all text: `[1,2]`, `"x"`.
    public init(stringLiteral text: String) { self.init([.text(text)]) }

    /// The compact form, objects as `{…}`, for a log.
    public var description: String {
        parts.map { part -> String in
            switch part {
            case let .text(text): return text
            case .object: return "{…}"
            }
        }.joined()
    }
}

/// An inner error kept whole in an error or an event, so the program can word it with its own
/// words; two are equal when their type and their structured description are.
public struct UnderlyingError: Sendable, Equatable, CustomStringConvertible {
    /// The inner error.
    public var error: any Error
    /// Keeps `error`.
    public init(_ error: any Error) { self.error = error }
    /// The inner error's own description.
    public var description: String { "\(error)" }
    /// Same type and same description.
    public static func == (lhs: UnderlyingError, rhs: UnderlyingError) -> Bool {
        type(of: lhs.error) == type(of: rhs.error) && "\(lhs.error)" == "\(rhs.error)"
    }
}

extension BoardDescription.ShakeSection {
    /// The detector settings: the board's values over the detector's defaults.
    public var detectorSettings: ShakeDetectorSettings {
        var s = ShakeDetectorSettings.standard
        if let v = thresholdG { s.thresholdG = v }
        if let v = minFraction { s.minFraction = v }
        if let v = minReversals { s.minReversals = v }
        if let v = cooldownMs { s.cooldownMs = v }
        return s
    }
}
