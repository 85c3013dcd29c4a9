import XCTest
import Foundation
import Glibc
@testable import TiltboardLinux

/// How `OutputFile` treats whatever is already at the path: nothing there, a regular file, a
/// symlink, a device node, a FIFO, a folder, a socket, a standard descriptor.
final class OutputFileTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "tiltboard-output-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    private func fileType(_ path: String) -> mode_t {
        var st = stat()
        XCTAssertEqual(lstat(path, &st), 0, path)
        return st.st_mode & S_IFMT
    }

    private func assertRefused(_ path: String, _ kind: OutputFileError.Kind, _ problem: OutputFileError.Problem, overwrite: Bool = true,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try OutputFile.open(path: path, overwrite: overwrite, closedStandardDescriptors: [])) { error in
            let e = error as? OutputFileError
            XCTAssertEqual(e?.kind, kind, "\(error)", file: file, line: line)
            XCTAssertEqual(e?.problem, problem, "\(error)", file: file, line: line)
            XCTAssertEqual(e?.path, path, "\(error)", file: file, line: line)
        }
    }

    func testANewFileIsCreatedAndAnExistingOneKeptUnlessOverwriteThenWrittenInPlace() throws {
        let path = folder + "/rec.csv"
        let created = try OutputFile.open(path: path, overwrite: false, closedStandardDescriptors: [])
        try created.write(Array("first\n".utf8))
        try created.close()
        XCTAssertEqual(try contents(path), "first\n")

        assertRefused(path, .overwriteNotAsked, .alreadyExists, overwrite: false)
        XCTAssertEqual(try contents(path), "first\n")

        XCTAssertEqual(chmod(path, 0o640), 0)
        XCTAssertEqual(link(path, folder + "/hard"), 0)
        var before = stat()
        stat(path, &before)
        let again = try OutputFile.open(path: path, overwrite: true, closedStandardDescriptors: [])
        try again.write(Array("second\n".utf8))
        try again.close()
        var after = stat()
        stat(path, &after)
        XCTAssertEqual(try contents(path), "second\n")
        XCTAssertEqual(after.st_ino, before.st_ino, "written in place, not replaced")
        XCTAssertEqual(after.st_mode & 0o7777, 0o640)
        XCTAssertEqual(try contents(folder + "/hard"), "second\n", "the other link sees the new contents")
    }

    func testASymlinkToAFileIsWrittenThroughAndStaysALink() throws {
        let target = folder + "/target.csv", link = folder + "/link.csv"
        try "old\n".write(toFile: target, atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(target, link), 0)
        assertRefused(link, .overwriteNotAsked, .alreadyExists, overwrite: false)
        let file = try OutputFile.open(path: link, overwrite: true, closedStandardDescriptors: [])
        try file.write(Array("new\n".utf8))
        try file.close()
        XCTAssertEqual(fileType(link), S_IFLNK)
        XCTAssertEqual(try contents(target), "new\n")
    }

    func testAReadOnlyFileIsRefusedEvenForRoot() throws {
        let path = folder + "/ro.csv"
        try "keep\n".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(path, 0o444), 0)
        assertRefused(path, .permission, .readOnly)
        XCTAssertEqual(try contents(path), "keep\n")
    }

    func testFoldersSocketsAndBrokenSymlinksAreRefusedAndLeftAlone() throws {
        let dir = folder + "/dir"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        assertRefused(dir, .refused, .notWritable(.folder))
        XCTAssertEqual(fileType(dir), S_IFDIR)

        let socketPath = folder + "/sock"
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buf in
            for (i, byte) in socketPath.utf8.enumerated() { buf[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        assertRefused(socketPath, .refused, .notWritable(.socket))
        XCTAssertEqual(fileType(socketPath), S_IFSOCK)

        let broken = folder + "/broken"
        XCTAssertEqual(symlink(folder + "/missing", broken), 0)
        assertRefused(broken, .refused, .danglingSymlink)
        XCTAssertEqual(fileType(broken), S_IFLNK)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/missing"))
    }

    func testACharacterDeviceIsWrittenThroughWithOrWithoutOverwrite() throws {
        let node = folder + "/null"
        // The same device as /dev/null (1, 3), made in this test's folder.
        guard mknod(node, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 else {
            throw XCTSkip("cannot make a device node here (\(String(cString: strerror(errno)))): not root, or a nodev file system")
        }
        for overwrite in [false, true] {
            let file = try OutputFile.open(path: node, overwrite: overwrite, closedStandardDescriptors: [])
            try file.write(Array("discarded\n".utf8))
            try file.close()
            XCTAssertEqual(fileType(node), S_IFCHR)
        }
    }

    func testAFIFOIsWrittenThroughToItsReaderAndWaitedForWithoutOne() throws {
        let fifo = folder + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        var waited = 0
        XCTAssertThrowsError(try OutputFile.open(path: fifo, overwrite: false, closedStandardDescriptors: [],
                                                 waitingForReader: { waited += 1 }, shouldStop: { waited > 0 })) { error in
            XCTAssertEqual((error as? OutputFileError)?.kind, .interrupted, "\(error)")
            XCTAssertEqual((error as? OutputFileError)?.problem, .stoppedWaitingForReader, "\(error)")
        }
        XCTAssertEqual(waited, 1)

        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        let file = try OutputFile.open(path: fifo, overwrite: false, closedStandardDescriptors: [])
        try file.write(Array("t,ax\n".utf8))
        try file.close()
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = read(reader, &buffer, buffer.count)
        XCTAssertEqual(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self), "t,ax\n")
        XCTAssertEqual(fileType(fifo), S_IFIFO)
    }

    func testASecondWriterOfTheSameFileIsRefusedEvenWithOverwrite() throws {
        let path = folder + "/shared.csv"
        let first = try OutputFile.open(path: path, overwrite: false, closedStandardDescriptors: [])
        try first.write(Array("first writer\n".utf8))
        assertRefused(path, .exists, .beingWritten)
        try first.write(Array("still mine\n".utf8))
        try first.close()
        XCTAssertEqual(try contents(path), "first writer\nstill mine\n")
    }

    func testStandardDescriptorNamesUseTheDescriptorAndRefuseOneClosedAtStart() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let file = try OutputFile.open(path: "/dev/fd/\(ends[1])", overwrite: false, closedStandardDescriptors: [])
        close(ends[1])
        try file.write(Array("through\n".utf8))
        try file.close()
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = read(ends[0], &buffer, buffer.count)
        XCTAssertEqual(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self), "through\n")

        XCTAssertThrowsError(try OutputFile.open(path: "/dev/stdout", overwrite: true, closedStandardDescriptors: [1])) { error in
            XCTAssertEqual((error as? OutputFileError)?.kind, .closedDescriptor)
            XCTAssertEqual((error as? OutputFileError)?.problem, .closedDescriptor(1), "\(error)")
        }
    }
}
