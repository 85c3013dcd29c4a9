import Foundation
import XCTest
import TiltboardDrivers
@testable import TiltboardLinux

/// The C shim over libgpiod: built for the installed generation, and failing the same way on both.
final class GPIOShimTests: XCTestCase {
    /// 1 when the installed <gpiod.h> is libgpiod 1.6 (it alone defines line bulks), else 2.
    private func installedHeaderGeneration() throws -> Int {
        guard let header = try? String(contentsOfFile: "/usr/include/gpiod.h", encoding: .utf8) else {
            throw XCTSkip("no /usr/include/gpiod.h; the package was built against another header")
        }
        return header.contains("GPIOD_LINE_BULK_MAX_LINES") ? 1 : 2
    }

    func testShimIsBuiltForTheInstalledHeader() throws {
        let generation = try installedHeaderGeneration()
        XCTAssertEqual(Gpiod.apiVersion, generation)
        XCTAssertTrue(Gpiod.libraryVersion.hasPrefix("\(generation)."), Gpiod.libraryVersion)
    }

    /// libgpiod 1.x is libgpiod.so.2 and 2.x is libgpiod.so.3: a header/library mix-up shows here.
    func testTheLoadedLibraryIsTheGenerationTheShimWasBuiltFor() throws {
        // RTLD_NOLOAD only finds a library that is already loaded: by name, exactly the soname.
        func isLoaded(_ soname: String) -> Bool {
            guard let handle = dlopen(soname, RTLD_NOW | RTLD_NOLOAD) else { return false }
            dlclose(handle)
            return true
        }
        let (expected, other) = Gpiod.apiVersion == 1 ? ("libgpiod.so.2", "libgpiod.so.3") : ("libgpiod.so.3", "libgpiod.so.2")
        XCTAssertTrue(isLoaded(expected), "\(expected) is not loaded")
        XCTAssertFalse(isLoaded(other), "\(other) is loaded too")
    }

    func testAMissingPathIsENOENTAtEveryEntryPoint() {
        let path = "/nonexistent-tiltboard/gpiochip7"
        XCTAssertEqual(Gpiod.chipInfo(path: path), .failure(GPIOErrno(code: ENOENT)))
        XCTAssertEqual(Gpiod.line(path: path, named: "GPIO17"), .failure(GPIOErrno(code: ENOENT)))
        XCTAssertEqual(Gpiod.lineInfo(path: path, offset: 17), .failure(GPIOErrno(code: ENOENT)))
        XCTAssertNil(Gpiod.currentConsumer(path: path, offset: 17))
        XCTAssertEqual(errorCode(Gpiod.requestOutput(path: path, offset: 17, consumer: "tiltboard", activeLow: false)), ENOENT)
        XCTAssertEqual(errorCode(Gpiod.requestRisingEdges(path: path, offset: 4, consumer: "tiltboard", activeLow: true)), ENOENT)
    }

    /// 1.6 says ENOTTY for /dev/null, 2.x ENODEV (a character device outside the gpio subsystem);
    /// both must read as "not a GPIO chip".
    func testDevNullIsNotAChipAtEveryEntryPoint() {
        let notAChip: Set<Int32> = [ENOTTY, ENODEV]
        guard case let .failure(error) = Gpiod.chipInfo(path: "/dev/null") else { return XCTFail("/dev/null opened as a chip") }
        XCTAssertTrue(notAChip.contains(error.code), "errno \(error.code)")
        XCTAssertEqual(Gpiod.line(path: "/dev/null", named: "GPIO17"), .failure(error))
        XCTAssertEqual(Gpiod.lineInfo(path: "/dev/null", offset: 0), .failure(error))
        XCTAssertEqual(errorCode(Gpiod.requestOutput(path: "/dev/null", offset: 17, consumer: "tiltboard", activeLow: false)), error.code)
        XCTAssertEqual(errorCode(Gpiod.requestRisingEdges(path: "/dev/null", offset: 4, consumer: "tiltboard", activeLow: false)), error.code)
    }

    func testAMissingChipPathReadsAsChipNotFound() throws {
        let dir = try TemporaryDirectory()
        for make in lineMakers {
            XCTAssertThrowsError(try make("/nonexistent-tiltboard/gpiochip7", dir.path)) { error in
                XCTAssertEqual((error as? GPIOError)?.kind, .chipNotFound)
                XCTAssertEqual((error as? GPIOError)?.problem,
                               .noChips(spec: "/nonexistent-tiltboard/gpiochip7", directory: dir.path), "\(error)")
            }
        }
    }

    func testDevNullReadsAsNotAChipForInputsAndOutputs() {
        for make in lineMakers {
            XCTAssertThrowsError(try make("/dev/null", "/dev")) { error in
                XCTAssertEqual((error as? GPIOError)?.kind, .chipNotFound)
                guard case let .notAChip(path, code)? = (error as? GPIOError)?.problem else { return XCTFail("\(error)") }
                XCTAssertEqual(path, "/dev/null")
                XCTAssertNotEqual(code, 0)
            }
        }
    }

    private var lineMakers: [(String, String) throws -> Any] {
        [
            { try GpiodOutputLine(chip: $0, line: .offset(17), activeLow: false, consumer: "tiltboard", deviceDirectory: $1) },
            { try GpiodInputLine(chip: $0, line: .name("GPIO4"), activeLow: false, consumer: "tiltboard", deviceDirectory: $1) },
        ]
    }

    private func errorCode(_ result: Result<Gpiod.Line, GPIOErrno>) -> Int32? {
        switch result {
        case let .success(line):
            Gpiod.release(line)
            return nil
        case let .failure(error):
            return error.code
        }
    }
}
