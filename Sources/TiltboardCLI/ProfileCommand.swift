import ArgumentParser
import Foundation
import Tiltboard
import TiltboardCommands
import TiltboardCore

/// `tiltboard profile …`: the calibration profile stored for a board.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Show the calibration profile stored for a board, or set its shake sensitivity.",
        subcommands: [Show.self, Shake.self, StressWrite.self],
        defaultSubcommand: Show.self
    )

    /// Which board and which profile file.
    struct Location: ParsableArguments {
        @Option(name: .long, help: "Board file (JSON); omit to use the built-in simulated MPU-6050 board.")
        var board: String?

        @Option(name: .long, help: "Profile file; default $XDG_CONFIG_HOME/tiltboard/profiles/<board>.json.")
        var profile: String?

        func resolve() throws -> (board: BoardDescription, path: String) {
            let description = try board.map { try BoardDescription.load(path: $0) } ?? .builtInSimulated()
            return (description, profile ?? ProfileStore.defaultPath(boardName: description.name))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the stored profile and where it is.",
            discussion: "Exits 65 when the profile is corrupt, truncated, from a newer tiltboard, or for another board."
        )

        @OptionGroup var location: Location

        @Flag(name: .long, help: "Print {\"path\": …, \"profile\": …} as JSON (profile null when there is none).")
        var json = false

        func run() throws {
            let (board, path) = try location.resolve()
            let profile = try ProfileStore.load(path: path, expectedBoard: nil)
            if let profile, let why = profile.board.mismatch(with: board) {
                throw ProfileError(path: path, kind: .otherBoard, problem: .otherBoard(why), remedy: .calibrateThisBoard)
            }
            if json {
                print(try ProfileShowOutput(path: path, profile: profile).jsonText())
            } else if let profile {
                print(ProfileText.render(profile, path: path), terminator: "")
            } else {
                print("no profile at \(path) — run `tiltboard calibrate`")
            }
        }
    }

    /// `tiltboard profile shake [LEVEL] [--threshold G …]`: the player's shake sensitivity.
    struct Shake: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "shake",
            abstract: "Show or set how hard a shake must be for this board's player.",
            discussion: """
            LEVEL is gentle (0.6 g), normal (0.8 g, the default) or firm (1.2 g): the linear \
            acceleration each half-cycle of a shake must reach. `default` removes the setting, so the \
            board file's "shake" section applies again. The expert options set the detector's own keys \
            (as in a board file's "shake" section) and win over LEVEL. Stored in the profile's "shake" \
            section, kept by later calibrations; a running `run`, `serve`, `shake`, `gamepad` or \
            `monitor` picks it up within a second. Without LEVEL or options, prints the setting. \
            On a board with no profile yet, one with a level neutral pose is created (as `calibrate --zero`). \
            Exits 64 on a bad level or value, 65 when the profile is corrupt or for another board.
            """
        )

        @OptionGroup var location: Location

        @Argument(help: ArgumentHelp("gentle, normal, firm, or default.", valueName: "level"))
        var level: String?

        @Option(name: .customLong("threshold"), help: ArgumentHelp("Linear acceleration each half-cycle must reach, more than 0 and at most 16.", valueName: "g"))
        var thresholdG: Double?

        @Option(help: ArgumentHelp("Direction reversals in a row that make a shake, 1…20 (default 2).", valueName: "n"))
        var minReversals: Int?

        @Option(help: ArgumentHelp("Share of the time spent swinging, 0…1 (default 0.6).", valueName: "0…1"))
        var minFraction: Double?

        @Option(help: ArgumentHelp("No new shake until this long after one ended, 0…60000 (default 500).", valueName: "ms"))
        var cooldown: Double?

        /// The section asked for; nil for `default`; not called when nothing was asked.
        func requested() throws -> ProfileShake? {
            var shake = ProfileShake(thresholdG: thresholdG, minReversals: minReversals, minFraction: minFraction,
                                     cooldownMs: cooldown)
            if let level {
                if level == "default" {
                    guard shake.isEmpty else { throw ValidationError("`default` takes no other option: it removes the profile's shake setting") }
                    return nil
                }
                guard let known = ShakeSensitivity(rawValue: level) else {
                    throw ValidationError("\"\(level)\" is not a sensitivity: use one of \(ShakeSensitivity.namesList), or default")
                }
                shake.level = known.rawValue
            }
            return shake
        }

        var asksForChange: Bool { level != nil || thresholdG != nil || minReversals != nil || minFraction != nil || cooldown != nil }

        func validate() throws {
            if let shake = try requested(), let problem = shake.problem {
                // The message names the profile key; the flag is what was typed.
                throw ValidationError(ErrorWording.profileValue(problem).replacingOccurrences(of: "shake.thresholdG", with: "--threshold")
                    .replacingOccurrences(of: "shake.minReversals", with: "--min-reversals")
                    .replacingOccurrences(of: "shake.minFraction", with: "--min-fraction")
                    .replacingOccurrences(of: "shake.cooldownMs", with: "--cooldown"))
            }
        }

        func run() throws {
            let (board, path) = try location.resolve()
            let existing = try ProfileStore.load(path: path, expectedBoard: nil)
            if let existing, let why = existing.board.mismatch(with: board) {
                throw ProfileError(path: path, kind: .otherBoard, problem: .otherBoard(why), remedy: .calibrateThisBoard)
            }
            let base = board.shake.detectorSettings
            guard asksForChange else {
                let settings = existing?.shake?.settings(over: base) ?? base
                let source = existing?.shake == nil ? "the board file's default" : "set in \(path)"
                print("shake sensitivity \(ProfileShake.describe(settings)), \(source)")
                return
            }
            let shake = try requested()
            let saved: CalibrationProfile
            if var profile = existing {
                profile.shake = (shake?.isEmpty ?? true) ? nil : shake
                saved = try ProfileStore.save(profile, path: path, writer: .shake)
            } else {
                // A new profile needs the chip's identity: open the board to read it.
                let session = try CommandBoard.open(board, profilePath: path, useProfile: false, fifo: false, warn: false)
                defer { session.close() }
                saved = try session.saveShake(shake)
            }
            let settings = saved.shake?.settings(over: base) ?? base
            print(saved.shake == nil
                  ? "shake sensitivity \(ProfileShake.describe(settings)), the board file's default; saved \(path)"
                  : "shake sensitivity \(ProfileShake.describe(settings)) saved in \(path)")
        }
    }

    /// Rewrites a profile as fast as it can, forever, alternating between numbered valid
    /// versions; the crash-safety test kills it at random moments.
    struct StressWrite: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stress-write",
            abstract: "Rewrite a profile in a loop (crash-safety testing).",
            shouldDisplay: false
        )

        @Option(name: .long, help: "Profile file to rewrite.")
        var profile: String

        @Option(name: .long, help: "Seed for the versions written.")
        var seed: UInt64 = 1

        @Option(name: .long, help: "Stop after this many writes (default: never).")
        var count: Int?

        func validate() throws {
            if let count, count < 0 { throw ValidationError("--count must be 0 or more, got \(count)") }
        }

        func run() throws {
            let versions = StressProfiles.versions(seed: seed)
            var written = 0
            while count.map({ written < $0 }) ?? true {
                try ProfileStore.save(versions[written % versions.count], path: profile)
                written += 1
                // Tells a watching test the first complete write is on disk.
                if written == 1 { Console.out("ready\n") }
            }
        }
    }
}

/// The versions `profile stress-write` cycles through: all valid, all different.
enum StressProfiles {
    static let count = 8

    static func versions(seed: UInt64) -> [CalibrationProfile] {
        (0..<count).map { i in
            let k = Double(i) + Double(seed % 1000) / 1000
            let tilt = 2 + k
            let rotation = Quaternion(axis: Vector3(1, 0.5, 0), angle: tilt * .pi / 180)
            let board = BoardDescription.builtInSimulated()
            return CalibrationProfile(
                board: ProfileBoardIdentity(board: board, chipID: board.sensor.chip.details.acceptedIDs[0]),
                createdAt: "2026-01-0\(1 + i % 9)T12:00:00Z",
                temperatureC: 20 + k,
                sampleCount: 100 + i,
                noiseMg: Vector3(1 + k / 10, 1.5, 2),
                neutral: .init(rotation: rotation, meanRawG: rotation.conjugate.rotate(.unitZ),
                               tiltDeg: tilt, clamped: false),
                // Every other version carries a sensor section so file sizes differ.
                sensor: i % 2 == 0 ? nil : .init(offsetG: Vector3(0.01 * k, -0.02, 0.03), scale: Vector3(1.01, 0.99, 1),
                                                 crossAxis: .identity, gyroBiasDps: Vector3(0.5, -0.25, k),
                                                 residualMg: 1.25, writtenToChip: i % 4 == 1))
        }
    }
}

/// `profile show --json` output.
struct ProfileShowOutput: Encodable {
    var path: String
    var profile: CalibrationProfile?

    enum CodingKeys: String, CodingKey { case path, profile }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        // An explicit null says "no profile" rather than leaving the key out.
        try c.encode(profile, forKey: .profile)
    }

    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

/// The human-readable form of a profile.
enum ProfileText {
    static func render(_ p: CalibrationProfile, path: String) -> String {
        let b = p.board
        var lines = ["profile \(path)"]
        lines.append("  board        \(b.name): \(b.chip.partName) at \(b.address.hex(uppercase: true)) on \(b.bus), chip ID \(b.chipID.hex(uppercase: true))")
        lines.append("  created      \(p.createdAt)" + (p.temperatureC.map { ", \(fixed($0, 1)) °C" } ?? ""))
        lines.append("  samples      \(p.sampleCount), noise \(vector(p.noiseMg, 2)) mg")
        let r = p.neutral.rotation
        lines.append("  neutral      tilt \(fixed(p.neutral.tiltDeg, 2))°\(p.neutral.clamped ? " (clamped)" : ""), mean \(vector(p.neutral.meanRawG, 4)) g")
        lines.append("               rotation w \(fixed(r.w, 6)) x \(fixed(r.x, 6)) y \(fixed(r.y, 6)) z \(fixed(r.z, 6))")
        if let s = p.shake {
            let settings = s.settings(over: BoardDescription.ShakeSection().detectorSettings)
            lines.append("  shake        sensitivity \(ProfileShake.describe(settings))")
        }
        if let g = p.gyroBiasDps { lines.append("  gyro bias    \(vector(g, 3)) °/s (neutral capture)") }
        if let s = p.sensor {
            lines.append("  sensor       offset \(vector(s.offsetG, 4)) g, scale \(vector(s.scale, 4)), residual \(fixed(s.residualMg, 2)) mg")
            if let g = s.gyroBiasDps { lines.append("               gyro bias \(vector(g, 3)) °/s") }
            lines.append("               cross-axis \(s.crossAxis == nil ? "none" : "corrected"), \(s.writtenToChip ? "written to the chip's offset registers" : "applied in software")")
        } else {
            lines.append("  sensor       not calibrated (neutral pose only)")
        }
        lines.append("  schema       \(p.schemaVersion)")
        return lines.joined(separator: "\n") + "\n"
    }

    // Not a per-sample path: printf's exact rounding of the stored binary values is worth it here.
    private static func fixed(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
    private static func vector(_ v: Vector3, _ digits: Int) -> String {
        "[\(fixed(v.x, digits)), \(fixed(v.y, digits)), \(fixed(v.z, digits))]"
    }
}
