import Foundation
import TiltboardCore
import TiltboardDrivers

/// What `tiltboard calibrate` stores for one board: the neutral pose and, once measured, the
/// sensor's offset and scale. Plain fields on purpose: the file format does not change when
/// the in-memory calibration types do.
public struct CalibrationProfile: Codable, Sendable, Equatable {
    /// The schema this build writes; files with a higher version are refused, not guessed at.
    public static let currentSchemaVersion = 1

    /// The profile format's version (`currentSchemaVersion` when written by this library).
    public var schemaVersion: Int
    /// The board the profile was measured on; loading it for another board is refused.
    public var board: ProfileBoardIdentity
    /// When the profile was measured, ISO 8601 (`2026-11-21T08:30:00Z`).
    public var createdAt: String
    /// Die temperature during calibration, where the chip reports one.
    public var temperatureC: Double?
    /// Samples averaged for the neutral pose; 0 when the pose was set without a capture (zeroed).
    public var sampleCount: Int
    /// Standard deviation per axis while still, in mg.
    public var noiseMg: Vector3
    /// The pose the board rests in when level, which the tilt is measured from.
    public var neutral: NeutralPose
    /// Absent until a sensor (offset and scale) calibration has been run.
    public var sensor: SensorCorrection?
    /// Gyro zero-rate output measured while the neutral pose was captured (the board is still
    /// then by definition), in the sensor frame, °/s, at `temperatureC`. Newer than, and used
    /// instead of, `sensor.gyroBiasDps`; absent on chips without a gyro.
    public var gyroBiasDps: Vector3?
    /// What the neutral pose was captured from, in raw sensor terms; the pose in use is derived
    /// from it through the current sensor calibration (`neutralPose(mount:)`), so a neutral pose
    /// and a sensor calibration captured in either order read the same at the neutral pose.
    /// Absent in profiles written before it existed, and after the neutral pose is reset to zero: `neutral` is then used
    /// as stored.
    package var neutralSource: NeutralSource?
    /// The player's shake sensitivity (`tiltboard profile shake`, the page); absent: the board
    /// file's `shake` section applies.
    public var shake: ProfileShake?

    package init(schemaVersion: Int = CalibrationProfile.currentSchemaVersion, board: ProfileBoardIdentity,
                createdAt: String, temperatureC: Double? = nil, sampleCount: Int, noiseMg: Vector3,
                neutral: NeutralPose, sensor: SensorCorrection? = nil, gyroBiasDps: Vector3? = nil,
                neutralSource: NeutralSource? = nil, shake: ProfileShake? = nil) {
        self.schemaVersion = schemaVersion; self.board = board; self.createdAt = createdAt
        self.temperatureC = temperatureC; self.sampleCount = sampleCount; self.noiseMg = noiseMg
        self.neutral = neutral; self.sensor = sensor; self.gyroBiasDps = gyroBiasDps
        self.neutralSource = neutralSource; self.shake = shake
    }

    /// A neutral capture in raw sensor terms.
    package struct NeutralSource: Codable, Sendable, Equatable {
        /// The mean acceleration while still at neutral as the chip reads it with nothing in its
        /// offset registers: sensor frame, g, before the sensor calibration and the mount.
        package var sensorMeanG: Vector3
        /// The steepest neutral pose compensated (the calibration's tilt limit), degrees.
        package var maxTiltDeg: Double

        package init(sensorMeanG: Vector3, maxTiltDeg: Double) {
            self.sensorMeanG = sensorMeanG; self.maxTiltDeg = maxTiltDeg
        }
    }

    /// The neutral pose to use on a board mounted as `mount`: derived from `neutralSource`
    /// through this profile's sensor calibration, or `neutral` as stored when there is no source.
    public func neutralPose(mount: Matrix3) -> NeutralPose {
        guard let source = neutralSource else { return neutral }
        let board = mount * sensorCalibration.apply(accel: source.sensorMeanG)
        return NeutralPose.capture(meanGravity: board, maxTiltDeg: source.maxTiltDeg)
    }

    /// Per-axis correction of the accelerometer in the sensor frame, as `SensorCalibration` applies it:
    /// corrected = crossAxis × ((raw − offsetG) / scale), per axis; raw = scale × true + offsetG.
    public struct SensorCorrection: Codable, Sendable, Equatable {
        /// Accelerometer zero-g offset in g, subtracted from each reading.
        public var offsetG: Vector3
        /// Accelerometer scale per axis (1 is exact).
        public var scale: Vector3
        /// Cross-axis correction from a six-face fit with cross-axis terms, if measured.
        public var crossAxis: Matrix3?
        /// Gyroscope bias in °/s, subtracted from each reading, when measured.
        public var gyroBiasDps: Vector3?
        /// RMS error of the fit over the calibration poses, in mg.
        public var residualMg: Double
        /// True when the offsets were programmed into the chip's own offset registers.
        public var writtenToChip: Bool

        /// A sensor correction as `tiltboard calibrate --sensor` measures it.
        public init(offsetG: Vector3, scale: Vector3, crossAxis: Matrix3? = nil, gyroBiasDps: Vector3? = nil,
                    residualMg: Double, writtenToChip: Bool) {
            self.offsetG = offsetG; self.scale = scale; self.crossAxis = crossAxis; self.gyroBiasDps = gyroBiasDps
            self.residualMg = residualMg; self.writtenToChip = writtenToChip
        }
    }

    /// The first thing wrong with the values, or nil when the profile can be applied.
    package var problem: ProfileValueProblem? {
        if schemaVersion < 1 { return .schemaVersion(schemaVersion) }
        if let p = board.problem { return p }
        if CalibrationProfile.date(fromTimestamp: createdAt) == nil { return .createdAt(createdAt) }
        if let t = temperatureC, !(t.isFinite && t > -60 && t < 150) { return .temperatureC(t) }
        if sampleCount < 0 { return .sampleCount(sampleCount) }
        if let g = gyroBiasDps, !isFinite(g) || g.maxAbsComponent > 500 { return .gyroBiasDps(g) }
        if !isFinite(noiseMg) || noiseMg.x < 0 || noiseMg.y < 0 || noiseMg.z < 0 { return .noiseMg(noiseMg) }
        let r = neutral.rotation
        if !(r.w.isFinite && r.x.isFinite && r.y.isFinite && r.z.isFinite) || Swift.abs(r.norm - 1) > 1e-6 {
            return .neutralRotation(r)
        }
        if !isFinite(neutral.meanRawG) || neutral.meanRawG.length < 0.1 { return .neutralMeanRawG(neutral.meanRawG) }
        if !(neutral.tiltDeg.isFinite && neutral.tiltDeg >= 0 && neutral.tiltDeg <= 180) { return .neutralTiltDeg(neutral.tiltDeg) }
        if let n = neutralSource {
            if !isFinite(n.sensorMeanG) || n.sensorMeanG.length < 0.1 || n.sensorMeanG.maxAbsComponent > 16 {
                return .sourceSensorMeanG(n.sensorMeanG)
            }
            if !(n.maxTiltDeg.isFinite && n.maxTiltDeg >= 0 && n.maxTiltDeg <= 90) { return .sourceMaxTiltDeg(n.maxTiltDeg) }
        }
        if let p = shake?.problem { return p }
        if let s = sensor {
            if !isFinite(s.offsetG) || s.offsetG.maxAbsComponent > 2 { return .sensorOffsetG(s.offsetG) }
            for axis in 0..<3 where !(s.scale[axis].isFinite && s.scale[axis] >= 0.5 && s.scale[axis] <= 2) {
                return .sensorScale(s.scale)
            }
            if let m = s.crossAxis {
                if !(isFinite(m.r0) && isFinite(m.r1) && isFinite(m.r2)) || Swift.abs(m.determinant) < 0.5 { return .sensorCrossAxis }
            }
            if let g = s.gyroBiasDps, !isFinite(g) || g.maxAbsComponent > 500 { return .sensorGyroBiasDps(g) }
            if !(s.residualMg.isFinite && s.residualMg >= 0) { return .sensorResidualMg(s.residualMg) }
        }
        return nil
    }

    /// `date` in the form `createdAt` takes: ISO 8601 in UTC, whole seconds.
    package static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Parses a `createdAt` value, with or without fractional seconds; nil when it is not ISO 8601.
    package static func date(fromTimestamp text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let d = formatter.date(from: text) { return d }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    private func isFinite(_ v: Vector3) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }
}

/// Which physical board a profile belongs to; a profile is only applied to the same board.
public struct ProfileBoardIdentity: Codable, Sendable, Equatable {
    /// The board file's `name`.
    public var name: String
    /// The chip family the profile was measured with.
    public var chip: ChipKind
    /// The I²C bus device the chip was on (`/dev/i2c-1`).
    public var bus: String
    /// The chip's 7-bit I²C address.
    public var address: UInt8
    /// WHO_AM_I / DEVID read during calibration.
    public var chipID: UInt8

    package init(name: String, chip: ChipKind, bus: String, address: UInt8, chipID: UInt8) {
        self.name = name; self.chip = chip; self.bus = bus; self.address = address; self.chipID = chipID
    }

    /// The identity of `board` whose chip answered with `chipID`.
    public init(board: BoardDescription, chipID: UInt8) {
        self.init(name: board.name, chip: board.sensor.chip, bus: board.sensor.bus,
                  address: board.sensor.address, chipID: chipID)
    }

    /// How this identity differs from `other`, or nil when they name the same board.
    package func mismatch(with other: ProfileBoardIdentity) -> ProfileBoardMismatch? {
        if let m = mismatch(withBoard: other.name, chip: other.chip, bus: other.bus, address: other.address) { return m }
        if chipID != other.chipID { return .chipID(profile: chipID, board: other.chipID) }
        return nil
    }

    /// How this identity differs from a board description (chip ID aside, which needs the hardware).
    package func mismatch(with board: BoardDescription) -> ProfileBoardMismatch? {
        mismatch(withBoard: board.name, chip: board.sensor.chip, bus: board.sensor.bus, address: board.sensor.address)
    }

    private func mismatch(withBoard otherName: String, chip otherChip: ChipKind, bus otherBus: String,
                          address otherAddress: UInt8) -> ProfileBoardMismatch? {
        if name != otherName { return .name(profile: name, board: otherName) }
        if chip != otherChip { return .chip(profile: chip.partName, board: otherChip.partName) }
        if bus != otherBus { return .bus(profile: bus, board: otherBus) }
        if address != otherAddress { return .address(profile: address, board: otherAddress) }
        return nil
    }

    var problem: ProfileValueProblem? {
        if name.isEmpty { return .boardNameEmpty }
        if bus.isEmpty { return .boardBusEmpty }
        if !chip.addresses.contains(address) { return .boardAddress(address, part: chip.partName) }
        return nil
    }

    private enum CodingKeys: String, CodingKey { case name, chip, bus, address, chipID }

    // Addresses and IDs are stored as "0x68", as in board files and data sheets.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        chip = try c.decode(ChipKind.self, forKey: .chip)
        bus = try c.decode(String.self, forKey: .bus)
        address = try Self.decodeByte(c, .address)
        chipID = try Self.decodeByte(c, .chipID)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(chip, forKey: .chip)
        try c.encode(bus, forKey: .bus)
        try c.encode(address.hex(uppercase: true), forKey: .address)
        try c.encode(chipID.hex(uppercase: true), forKey: .chipID)
    }

    private static func decodeByte(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> UInt8 {
        let text = try c.decode(String.self, forKey: key)
        guard text.hasPrefix("0x"), text.count > 2, let b = UInt8(text.dropFirst(2), radix: 16) else {
            let path = (c.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            throw ProfileNotAByte(key: path, text: text)
        }
        return b
    }
}

/// How a profile's board differs from the board in use: the profile's value, then the board's.
public enum ProfileBoardMismatch: Sendable, Equatable {
    /// Another board name.
    case name(profile: String, board: String)
    /// Another chip (part names).
    case chip(profile: String, board: String)
    /// Another bus.
    case bus(profile: String, board: String)
    /// Another I²C address.
    case address(profile: UInt8, board: UInt8)
    /// Another chip ID (the chip's WHO_AM_I answer).
    case chipID(profile: UInt8, board: UInt8)
}

/// A profile value out of its range: the key it is at and the value. The first one found is
/// what `ProfileError.Problem.invalidValue` and `refusingToSave` carry.
public enum ProfileValueProblem: Sendable, Equatable {
    /// `schemaVersion` below 1.
    case schemaVersion(Int)
    /// `board.name` empty.
    case boardNameEmpty
    /// `board.bus` empty.
    case boardBusEmpty
    /// `board.address` that is not an address of `part`.
    case boardAddress(UInt8, part: String)
    /// `createdAt` that is not an ISO 8601 time.
    case createdAt(String)
    /// `temperatureC` outside -60…150 °C.
    case temperatureC(Double)
    /// `sampleCount` below 0.
    case sampleCount(Int)
    /// `gyroBiasDps` not finite or beyond ±500 °/s.
    case gyroBiasDps(Vector3)
    /// `noiseMg` not finite or negative.
    case noiseMg(Vector3)
    /// `neutral.rotation` that is not a unit quaternion.
    case neutralRotation(Quaternion)
    /// `neutral.meanRawG` that is no gravity reading (under 0.1 g, or not finite).
    case neutralMeanRawG(Vector3)
    /// `neutral.tiltDeg` outside 0…180.
    case neutralTiltDeg(Double)
    /// `neutralSource.sensorMeanG` that is no gravity reading.
    case sourceSensorMeanG(Vector3)
    /// `neutralSource.maxTiltDeg` outside 0…90.
    case sourceMaxTiltDeg(Double)
    /// `shake.level` that is not a sensitivity; `levels` are the names there are.
    case shakeLevel(String, levels: [String])
    /// `shake.thresholdG` not in (0, 16].
    case shakeThresholdG(Double)
    /// `shake.minReversals` outside 1…20.
    case shakeMinReversals(Int)
    /// `shake.minFraction` outside 0…1.
    case shakeMinFraction(Double)
    /// `shake.cooldownMs` outside 0…60000.
    case shakeCooldownMs(Double)
    /// `sensor.offsetG` not finite or beyond ±2 g.
    case sensorOffsetG(Vector3)
    /// `sensor.scale` outside 0.5…2 on an axis.
    case sensorScale(Vector3)
    /// `sensor.crossAxis` not finite or nearly singular.
    case sensorCrossAxis
    /// `sensor.gyroBiasDps` not finite or beyond ±500 °/s.
    case sensorGyroBiasDps(Vector3)
    /// `sensor.residualMg` not finite or negative.
    case sensorResidualMg(Double)
}

/// A byte field of a profile (`board.address`, `board.chipID`) that is not written like `"0x68"`;
/// `ProfileStore` reports it as `ProfileError.Problem.notAByte`.
package struct ProfileNotAByte: Error, Sendable, CustomStringConvertible {
    /// The dotted key.
    package var key: String
    /// The text found there.
    package var text: String
    /// The structured form for logs.
    package var description: String { "ProfileNotAByte(key: \(key), text: \(text))" }
}
