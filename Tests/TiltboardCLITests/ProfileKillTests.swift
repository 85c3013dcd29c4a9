import Foundation
import Tiltboard
@testable import TiltboardCLI
import XCTest
import TiltboardLinux
#if canImport(Glibc)
import Glibc
#endif

/// Kills `tiltboard profile stress-write` at random moments and checks that the profile on
/// disk is always one complete version: never missing, truncated or mixed.
final class ProfileKillTests: XCTestCase {
    func testProfileSurvivesSIGKILLAtRandomMoments() throws {
        let binary = try CLIRunner.binaryPath()
        let folder = try makeScratchFolder(self)
        let path = folder + "/profile.json"
        let seed: UInt64 = 11
        let versions = StressProfiles.versions(seed: seed)
        var random = SplitMix(seed: 0x5EED)
        let rounds = 100
        var seen = Set<Int>()
        var maxStray = 0

        for round in 0..<rounds {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["profile", "stress-write", "--profile", path, "--seed", String(seed)]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            // "ready" arrives after the first complete write: from then on the loop is rewriting.
            let ready = out.fileHandleForReading.readData(ofLength: 6)
            XCTAssertEqual(String(decoding: ready, as: UTF8.self), "ready\n", "round \(round)")
            usleep(UInt32(random.next() % 30_001))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "round \(round): the writer ended on its own")
            try? out.fileHandleForReading.close()

            let profile = try XCTUnwrap(try ProfileStore.load(path: path, expectedBoard: nil), "round \(round): profile missing")
            let index = try XCTUnwrap(versions.firstIndex(of: profile), "round \(round): not a version that was written")
            seen.insert(index)
            if let backup = try ProfileStore.load(path: path + ".bak", expectedBoard: nil) {
                XCTAssertNotNil(versions.firstIndex(of: backup), "round \(round): backup is not a written version")
            }
            let prefix = AtomicFile.temporaryPrefix(forFileNamed: "profile.json")
            let entries = try FileManager.default.contentsOfDirectory(atPath: folder)
            let stray = entries.filter { $0.hasPrefix(prefix) }
            maxStray = max(maxStray, stray.count)
            XCTAssertLessThanOrEqual(stray.count, 1, "round \(round): temporaries accumulate: \(stray)")
            XCTAssertEqual(Set(entries).subtracting(stray), ["profile.json", "profile.json.bak"], "round \(round)")
            if testRun?.failureCount ?? 0 > 5 { break }
        }
        // The kills landed while the loop was cycling, not always at the same point.
        XCTAssertGreaterThan(seen.count, 1, "only version(s) \(seen) were ever on disk")
        print("kill test: \(rounds) rounds, versions seen \(seen.sorted()), most temporaries left at once \(maxStray)")
    }
}

/// A small deterministic generator for kill timings.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
