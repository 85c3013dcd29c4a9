import Foundation
import XCTest

/// Examples/LibraryExample/main.swift, the README's library example: it runs (opens a simulated
/// board, prints tilt lines, stops on the first shake, exit 0), it needs only the library's
/// public API, and the README shows it as it is. Among the CLI's tests, which run natively (the
/// arm64 stage's qemu-user cannot start an arm64 child, nor typecheck for the host).
final class LibraryExampleTests: XCTestCase {
    private let source = packageRoot + "/Examples/LibraryExample/main.swift"

    /// Where `swift build` put the products: the folder of the test bundle (on Linux, the main
    /// bundle), else the package's `.build/debug`.
    private func productsFolder() throws -> String {
        let candidates = [Bundle.main.bundleURL.path, packageRoot + "/.build/debug"]
        for folder in candidates where FileManager.default.isExecutableFile(atPath: folder + "/LibraryExample") {
            return folder
        }
        XCTFail("LibraryExample not built (looked in \(candidates)); `swift build --build-tests` builds it")
        throw XCTSkip("no LibraryExample binary")
    }

    private struct Ran {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    private func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Ran {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both read to the end before the wait, so a full pipe cannot hold the child.
        let errBox = DataBox()
        let errDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            errDone.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return Ran(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }

    func testTheExamplePrintsTiltLinesAndStopsOnTheFirstShake() throws {
        let folder = try makeScratchFolder(self)
        var environment = ProcessInfo.processInfo.environment
        // No profile of the developer's own applies: the default profile folder is the test's.
        environment["XDG_CONFIG_HOME"] = folder
        environment["STATE_DIRECTORY"] = nil
        let ran = try run(try productsFolder() + "/LibraryExample", [], environment: environment)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertEqual(ran.stderr, "")
        let lines = ran.stdout.split(separator: "\n").map(String.init)
        let tilt = lines.filter { $0.hasPrefix("tilt ") }
        // Boards/simulated-wake.json: 4 s still, then a 4 Hz shake; two lines a second until it.
        XCTAssertGreaterThanOrEqual(tilt.count, 7, ran.stdout)
        XCTAssertLessThanOrEqual(tilt.count, 10, ran.stdout)
        for line in tilt {
            // `tilt <pitch>° <roll>°, marker <x> <y>`: level within a few degrees, the marker within its square.
            let fields = line.split(separator: " ")
            XCTAssertEqual(fields.count, 6, line)
            guard fields.count == 6 else { continue }
            let pitch = Double(fields[1].dropLast()) ?? .nan, roll = Double(fields[2].dropLast(2)) ?? .nan
            XCTAssertLessThan(abs(pitch), 5, line)
            XCTAssertLessThan(abs(roll), 5, line)
            XCTAssertEqual(fields[3], "marker", line)
            for v in fields[4...5] { XCTAssertLessThanOrEqual(abs(Double(v) ?? .nan), 1, line) }
        }
        let last = try XCTUnwrap(lines.last)
        XCTAssertTrue(last.hasPrefix("shake at "), ran.stdout)
        XCTAssertEqual(lines.filter { $0.hasPrefix("shake") }.count, 1, "the first shake stops the loop")
        let t = try XCTUnwrap(Double(last.dropFirst("shake at ".count).dropLast(2)), last)
        XCTAssertGreaterThan(t, 4)
        XCTAssertLessThan(t, 5)
    }

    /// The C modules the library's Linux layer imports: what a build of a program using it
    /// passes to the compiler too.
    private func clangModuleFlags(products: String) -> [String] {
        ["-Xcc", "-fmodule-map-file=\(products)/CLinuxSupport.build/module.modulemap",
         "-Xcc", "-I", "-Xcc", packageRoot + "/Sources/CLinuxSupport/include",
         "-Xcc", "-fmodule-map-file=\(products)/CGPIODShim.build/module.modulemap",
         "-Xcc", "-I", "-Xcc", packageRoot + "/Sources/CGPIODShim/include",
         "-Xcc", "-fmodule-map-file=\(packageRoot)/Sources/CGPIOD/module.modulemap",
         "-Xcc", "-fmodule-map-file=\(packageRoot)/Sources/CI2C/module.modulemap"]
    }

    private func swiftc() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") + ["/opt/swift/usr/bin", "/usr/bin"] {
            let candidate = "\(folder)/swiftc"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        XCTFail("no swiftc on PATH")
        throw XCTSkip("no swiftc")
    }

    /// Type-checked against the built modules as a program outside this package would be: without
    /// `-package-name`, so the package's `package` declarations are out of its reach.
    private func typecheck(_ file: String) throws -> Ran {
        let products = try productsFolder()
        return try run(try swiftc(), ["-typecheck", "-I", products + "/Modules", "-I", products]
                       + clangModuleFlags(products: products) + [file])
    }

    func testTheExampleNeedsOnlyThePublicAPI() throws {
        let ran = try typecheck(source)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertTrue(ran.stdout.isEmpty && !ran.stderr.contains("error"), ran.stderr)
    }

    func testThePublicCheckRefusesAPackageDeclaration() throws {
        // The same check on a program that reaches for a `package` declaration fails: the check
        // above can fail.
        let folder = try makeScratchFolder(self)
        let file = folder + "/main.swift"
        try """
        import Tiltboard
        _ = BoardSession.backend
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let ran = try typecheck(file)
        XCTAssertNotEqual(ran.status, 0)
        XCTAssertTrue(ran.stderr.contains("backend"), ran.stderr)
    }

    func testTheREADMEShowsTheExampleAsItIs() throws {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        guard let start = readme.range(of: "<!-- library-example -->\n"),
              let end = readme.range(of: "<!-- /library-example -->", range: start.upperBound..<readme.endIndex) else {
            throw XCTSkip("README.md has no library-example markers yet")
        }
        let between = readme[start.upperBound..<end.lowerBound]
        let open = try XCTUnwrap(between.range(of: "```swift\n"), "no swift code block between the markers")
        let close = try XCTUnwrap(between.range(of: "```", options: .backwards, range: open.upperBound..<between.endIndex))
        let code = try String(contentsOfFile: source, encoding: .utf8)
        XCTAssertEqual(String(between[open.upperBound..<close.lowerBound]), code)
    }
}

/// What the stderr reader hands back.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
