import Foundation
@testable import TiltboardLinux
import XCTest

final class JournalStreamTests: XCTestCase {
    func testOnlyTheDeviceAndInodeOfTheDescriptorItselfCount() throws {
        let path = NSTemporaryDirectory() + "journal-stream-" + UUID().uuidString
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var info = stat()
        XCTAssertEqual(fstat(fd, &info), 0)
        let value = "\(info.st_dev):\(info.st_ino)"
        XCTAssertTrue(JournalStream.isConnected(fd: fd, journalStream: value))
        for stale in ["\(info.st_dev):\(info.st_ino + 1)", "\(info.st_dev + 1):\(info.st_ino)", nil, "", ":", "\(info.st_dev)",
                      "\(info.st_dev):\(info.st_ino):1", " \(value)", "\(value)x", "-1:-1", String(repeating: "9", count: 100_000)] {
            XCTAssertFalse(JournalStream.isConnected(fd: fd, journalStream: stale), stale.map { String($0.prefix(40)) } ?? "nil")
        }
        // A closed descriptor is never the journal.
        XCTAssertFalse(JournalStream.isConnected(fd: 9_999, journalStream: value))
    }

    func testEachLineGetsThePrefix() {
        XCTAssertEqual(JournalStream.prefixed("tiltboard: a\n", .warning), "<4>tiltboard: a\n")
        XCTAssertEqual(JournalStream.prefixed("one\ntwo\n", .error), "<3>one\n<3>two\n")
        XCTAssertEqual(JournalStream.prefixed("no newline", .info), "<6>no newline")
        XCTAssertEqual(JournalStream.prefixed("", .info), "")
    }
}
