import Foundation
@testable import Tiltboard
import TiltboardCore
import TiltboardLinux
import XCTest

/// The profile's optional `shake` section: round trip, validation, and how it lays over the board
/// file's settings.
final class ProfileShakeTests: XCTestCase {
    private let identity = ProfileBoardIdentity(name: "b", chip: .mpu6050, bus: "/dev/i2c-1", address: 0x68, chipID: 0x68)

    private func profile(_ shake: ProfileShake?) -> CalibrationProfile {
        CalibrationProfile(board: identity, createdAt: "2026-11-21T08:30:00Z", sampleCount: 0, noiseMg: .zero,
                           neutral: .level, shake: shake)
    }

    func testLevelsMapToThresholds() {
        XCTAssertEqual(ShakeSensitivity.allCases.map(\.thresholdG), [0.6, 0.8, 1.2])
        XCTAssertEqual(ShakeSensitivity.normal.thresholdG, ShakeDetectorSettings.standard.thresholdG)
        XCTAssertEqual(ShakeSensitivity(thresholdG: 1.2), .firm)
        XCTAssertNil(ShakeSensitivity(thresholdG: 1.0))
        XCTAssertEqual(ProfileShake.describe(ShakeDetectorSettings.standard), "normal (0.8 g)")
        XCTAssertEqual(ProfileShake.describe(ShakeDetectorSettings(thresholdG: 1.25)), "custom (1.25 g)")
    }

    func testRoundTripKeepsTheSection() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        let shake = ProfileShake(level: .gentle, minReversals: 3, cooldownMs: 800)
        try ProfileStore.save(profile(shake), path: path)
        let text = String(decoding: try XCTUnwrap(try AtomicFile.read(path: path)), as: UTF8.self)
        XCTAssertTrue(text.contains("""
          "shake" : {
            "cooldownMs" : 800,
            "level" : "gentle",
            "minReversals" : 3
          }
        }
        """), text)
        let loaded = try XCTUnwrap(try ProfileStore.load(path: path, expectedBoard: identity))
        XCTAssertEqual(loaded.shake, shake)
        let settings = try XCTUnwrap(loaded.shake).settings(over: ShakeDetectorSettings(thresholdG: 2, minFraction: 0.5))
        XCTAssertEqual(settings.thresholdG, 0.6, "the level wins over the board file's threshold")
        XCTAssertEqual(settings.minReversals, 3)
        XCTAssertEqual(settings.minFraction, 0.5, "keys not given stay the board file's")
        XCTAssertEqual(settings.cooldownMs, 800)
        // An expert threshold wins over the level.
        XCTAssertEqual(ProfileShake(level: .firm, thresholdG: 1.0).settings(over: .standard).thresholdG, 1.0)
        // Without the section: as before, no key written.
        try ProfileStore.save(profile(nil), path: path)
        XCTAssertFalse(String(decoding: try XCTUnwrap(try AtomicFile.read(path: path)), as: UTF8.self).contains("shake"))
    }

    func testInvalidSectionsAreRefusedWithTheKey() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/p.json"
        try ProfileStore.save(profile(ProfileShake(level: .normal)), path: path)
        let good = String(decoding: try XCTUnwrap(try AtomicFile.read(path: path)), as: UTF8.self)
        let cases: [(String, ProfileError.Kind, ProfileError.Problem?)] = [
            (#""level" : "hard""#, .invalid, .invalidValue(.shakeLevel("hard", levels: ["gentle", "normal", "firm"]))),
            (#""level" : "normal", "thresholdG" : 0"#, .invalid, .invalidValue(.shakeThresholdG(0))),
            (#""level" : "normal", "thresholdG" : 17"#, .invalid, .invalidValue(.shakeThresholdG(17))),
            (#""minReversals" : 0"#, .invalid, .invalidValue(.shakeMinReversals(0))),
            (#""minFraction" : 1.5"#, .invalid, .invalidValue(.shakeMinFraction(1.5))),
            (#""cooldownMs" : -1"#, .invalid, .invalidValue(.shakeCooldownMs(-1))),
            (#""level" : "normal", "sensitivity" : 1"#, .corrupt,
             .unknownKey(key: "shake.sensitivity", allowed: ["cooldownMs", "level", "minFraction", "minReversals", "thresholdG"])),
            (#""level" : 3"#, .corrupt, nil),
        ]
        for (body, kind, problem) in cases {
            let text = good.replacingOccurrences(of: #""level" : "normal""#, with: body)
            XCTAssertNotEqual(text, good)
            try Array(text.utf8).write(to: path)
            do {
                _ = try ProfileStore.load(path: path, expectedBoard: identity)
                XCTFail("loaded \(body)")
            } catch let error as ProfileError {
                XCTAssertEqual(error.kind, kind, body)
                if let problem {
                    XCTAssertEqual(error.problem, problem, body)
                } else {
                    guard case .wrongType(key: "shake.level", _) = error.problem else { return XCTFail("\(body): \(error)") }
                }
            }
        }
        XCTAssertThrowsError(try ProfileStore.save(profile(ProfileShake(thresholdG: .nan)), path: path))
    }

    func testTheProfilesSensitivityReachesTheLoopAndCalibrationKeepsIt() throws {
        let folder = try makeScratchFolder(self)
        var board = BoardDescription.builtInSimulated()
        board.shake = .init(thresholdG: 0.9, cooldownMs: 700)
        let path = folder + "/p.json"
        let session = try BoardSession(board: board, clock: ManualClock(), profilePath: path, useProfile: true)
        defer { session.close() }
        XCTAssertEqual(session.shakeSettings.thresholdG, 0.9, "no profile: the board file's")
        let saved = try session.saveShake(ProfileShake(level: .firm))
        XCTAssertEqual(saved.shake?.sensitivity, .firm)
        XCTAssertEqual(saved.neutral, .level, "a new profile is level")
        try session.apply(profile: saved)
        let loop = session.makeLoop(rateHz: 100, haptics: nil)
        XCTAssertEqual(loop.pipeline.shake.settings.thresholdG, 1.2)
        XCTAssertEqual(loop.pipeline.shake.settings.cooldownMs, 700)
        // A neutral capture or a zero keeps the sensitivity.
        try session.zeroNeutral()
        XCTAssertEqual(try ProfileStore.load(path: path, expectedBoard: nil)?.shake, ProfileShake(level: .firm))
        try session.saveNeutral(.level, capture: CaptureSummary(sampleCount: 10, noiseMg: .zero, temperatureC: nil))
        XCTAssertEqual(try ProfileStore.load(path: path, expectedBoard: nil)?.shake, ProfileShake(level: .firm))
        // Removing it: the board file's again, applied at a tick boundary by the loop.
        let cleared = try session.saveShake(nil)
        XCTAssertNil(cleared.shake)
        loop.setShakeSettings(session.shakeSettings(for: cleared))
        XCTAssertEqual(loop.pipeline.shake.settings.thresholdG, 0.9)
        // Run-only overrides (`shake --threshold`) win over both.
        var overrides = BoardDescription.ShakeSection()
        overrides.thresholdG = 2
        XCTAssertEqual(session.shakeSettings(for: saved, overrides: overrides).thresholdG, 2)
        XCTAssertEqual(session.makePipeline(shakeOverrides: overrides).shake.settings.thresholdG, 2)
    }
}
