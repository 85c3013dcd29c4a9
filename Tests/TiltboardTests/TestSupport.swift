import Foundation
import XCTest
import Tiltboard
import TiltboardCore
import TiltboardDrivers

/// The package root, found from this file's location (Tests/TiltboardTests/…).
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A fresh, empty folder under the system temporary folder, removed when the test ends.
func makeScratchFolder(_ test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let path = NSTemporaryDirectory() + "tiltboard-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

