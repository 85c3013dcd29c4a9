import Foundation
import Tiltboard
import XCTest
import TiltboardLinux
#if canImport(Glibc)
import Glibc
#endif

final class AtomicFileTests: XCTestCase {
    private func entries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    private func mode(_ path: String) -> mode_t {
        var st = stat()
        XCTAssertEqual(lstat(path, &st), 0, path)
        return st.st_mode & 0o7777
    }

    func testWritesCreatesFoldersKeepsBackupAndLeavesNoTemporaries() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/a/b/file.json"
        try AtomicFile.write(Array("one".utf8), to: path)
        XCTAssertEqual(try AtomicFile.read(path: path), Array("one".utf8))
        XCTAssertEqual(try entries(folder + "/a/b"), ["file.json"], "no backup of a file that did not exist")
        XCTAssertEqual(mode(folder + "/a"), 0o755)
        XCTAssertEqual(mode(folder + "/a/b"), 0o755)

        try AtomicFile.write(Array("two".utf8), to: path)
        try AtomicFile.write(Array("three".utf8), to: path)
        XCTAssertEqual(try AtomicFile.read(path: path), Array("three".utf8))
        XCTAssertEqual(try AtomicFile.read(path: path + ".bak"), Array("two".utf8))
        XCTAssertEqual(try entries(folder + "/a/b"), ["file.json", "file.json.bak"])

        try AtomicFile.write([], to: path, keepBackup: false)
        XCTAssertEqual(try AtomicFile.read(path: path), [])
        XCTAssertEqual(try AtomicFile.read(path: path + ".bak"), Array("two".utf8), "keepBackup: false leaves .bak alone")
    }

    func testPermissionsIgnoreTheUmask() throws {
        let folder = try makeScratchFolder(self)
        let old = umask(0o077)
        defer { umask(old) }
        try AtomicFile.write(Array("x".utf8), to: folder + "/f")
        XCTAssertEqual(mode(folder + "/f"), 0o644)
        try AtomicFile.write(Array("x".utf8), to: folder + "/g", permissions: 0o600)
        XCTAssertEqual(mode(folder + "/g"), 0o600)
    }

    func testLargeContentsSurviveIntact() throws {
        let folder = try makeScratchFolder(self)
        var generator = SplitMix(seed: 3)
        let bytes = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try AtomicFile.write(bytes, to: folder + "/big")
        XCTAssertEqual(try AtomicFile.read(path: folder + "/big"), bytes)
    }

    func testReadOfMissingFileIsNilAndOfAnythingButARegularFileThrows() throws {
        let folder = try makeScratchFolder(self)
        XCTAssertNil(try AtomicFile.read(path: folder + "/missing"))
        XCTAssertThrowsError(try AtomicFile.read(path: folder)) { error in
            XCTAssertEqual(error as? NotARegularFile, NotARegularFile(path: folder, kind: .folder))
            XCTAssertEqual((error as? NotARegularFile)?.description, "NotARegularFile(folder, path: \(folder))")
        }
        // A FIFO nobody writes to: refused at once, not waited on.
        XCTAssertEqual(mkfifo(folder + "/fifo", 0o644), 0)
        XCTAssertThrowsError(try AtomicFile.read(path: folder + "/fifo")) { error in
            XCTAssertEqual((error as? NotARegularFile)?.kind, .fifo)
        }
        // A file over the limit is not read into memory.
        try AtomicFile.write(Array(repeating: 0x20, count: 2000), to: folder + "/big", keepBackup: false)
        XCTAssertThrowsError(try AtomicFile.read(path: folder + "/big", maxBytes: 1000)) { error in
            XCTAssertEqual(error as? FileTooLarge, FileTooLarge(path: folder + "/big", size: 2000, limit: 1000))
            XCTAssertEqual("\(error)", "FileTooLarge(size: 2000, limit: 1000, path: \(folder)/big)")
        }
        XCTAssertEqual(try AtomicFile.read(path: folder + "/big", maxBytes: 2000)?.count, 2000)
    }

    func testTargetSymlinkIsReplacedNotWrittenThrough() throws {
        let folder = try makeScratchFolder(self)
        try AtomicFile.write(Array("victim".utf8), to: folder + "/victim", keepBackup: false)
        XCTAssertEqual(symlink(folder + "/victim", folder + "/link"), 0)
        try AtomicFile.write(Array("new".utf8), to: folder + "/link", keepBackup: false)
        XCTAssertEqual(try AtomicFile.read(path: folder + "/victim"), Array("victim".utf8))
        XCTAssertEqual(try AtomicFile.read(path: folder + "/link"), Array("new".utf8))
        var st = stat()
        XCTAssertEqual(lstat(folder + "/link", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG)
    }

    func testPlantedSymlinkAtATemporaryNameIsRefused() throws {
        let folder = try makeScratchFolder(self)
        try AtomicFile.write(Array("victim".utf8), to: folder + "/victim", keepBackup: false)
        try AtomicFile.write(Array("old".utf8), to: folder + "/p.json", keepBackup: false)
        let planted = folder + "/" + AtomicFile.temporaryPrefix(forFileNamed: "p.json") + "\(getpid()).fixed"
        XCTAssertEqual(symlink(folder + "/victim", planted), 0)
        for keepBackup in [false, true] {
            XCTAssertThrowsError(try AtomicFile.write(Array("evil".utf8), to: folder + "/p.json", permissions: 0o644,
                                                      keepBackup: keepBackup, temporarySuffix: "fixed")) { error in
                let e = error as? AtomicFileError
                XCTAssertEqual(e?.errno, EEXIST, "\(error)")
                XCTAssertEqual(e?.path, folder + "/p.json")
                if !keepBackup { XCTAssertEqual(e?.step, .create(planted), "\(error)") }
            }
            XCTAssertEqual(try AtomicFile.read(path: folder + "/victim"), Array("victim".utf8), "written through the link")
            XCTAssertEqual(try AtomicFile.read(path: folder + "/p.json"), Array("old".utf8))
        }
        // A dangling link (the victim does not exist yet) must not be created through either.
        XCTAssertEqual(unlink(planted), 0)
        XCTAssertEqual(symlink(folder + "/created-by-link", planted), 0)
        XCTAssertThrowsError(try AtomicFile.write(Array("evil".utf8), to: folder + "/p.json", permissions: 0o644,
                                                  keepBackup: false, temporarySuffix: "fixed"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/created-by-link"))
        // The unplanted path works with the same fixed suffix.
        XCTAssertEqual(unlink(planted), 0)
        try AtomicFile.write(Array("new".utf8), to: folder + "/p.json", permissions: 0o644, keepBackup: true,
                             temporarySuffix: "fixed")
        XCTAssertEqual(try AtomicFile.read(path: folder + "/p.json"), Array("new".utf8))
        XCTAssertEqual(try AtomicFile.read(path: folder + "/p.json.bak"), Array("old".utf8))
        XCTAssertEqual(try entries(folder), ["p.json", "p.json.bak", "victim"])
    }

    func testStaleTemporariesOfDeadWritersAreRemoved() throws {
        let folder = try makeScratchFolder(self)
        let prefix = folder + "/" + AtomicFile.temporaryPrefix(forFileNamed: "p.json")
        // pid_max is at most 2^22, so this pid cannot be running.
        let dead = prefix + "99999999.abc"
        let live = prefix + "\(getppid()).abc"
        try Array("half".utf8).write(to: dead)
        try Array("busy".utf8).write(to: live)
        try AtomicFile.write(Array("ok".utf8), to: folder + "/p.json")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dead))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live), "another live writer's temporary is left alone")
    }

    func testErrorsNamePathAndReasonAndCleanUp() throws {
        let folder = try makeScratchFolder(self)
        try AtomicFile.write(Array("x".utf8), to: folder + "/file", keepBackup: false)
        // A regular file where a folder is needed.
        XCTAssertThrowsError(try AtomicFile.write([1], to: folder + "/file/sub/p.json")) { error in
            let e = error as? AtomicFileError
            XCTAssertEqual(e?.path, folder + "/file/sub/p.json")
            XCTAssertEqual(e?.errno, ENOTDIR)
            XCTAssertEqual(e?.reason, "Not a directory (errno 20)", "\(error)")
        }
        // A folder where the file should go: refused before any temporary is made.
        try FileManager.default.createDirectory(atPath: folder + "/d/target/inner", withIntermediateDirectories: true)
        XCTAssertThrowsError(try AtomicFile.write([1], to: folder + "/d/target", keepBackup: false)) { error in
            XCTAssertEqual((error as? OutputFileError)?.kind, .refused, "\(error)")
            XCTAssertEqual((error as? OutputFileError)?.problem, .neverReplaced(.folder), "\(error)")
        }
        XCTAssertEqual(try entries(folder + "/d"), ["target"])
    }

    func testDevicesAndFIFOsAreNeverRenamedOverNorBackedUp() throws {
        let folder = try makeScratchFolder(self)
        let fifo = folder + "/p.json"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for attempt in [{ try AtomicFile.write([1], to: fifo) }, { try AtomicFile.checkWritable(fifo) }] {
            XCTAssertThrowsError(try attempt()) { error in
                XCTAssertEqual((error as? OutputFileError)?.kind, .refused, "\(error)")
                XCTAssertEqual((error as? OutputFileError)?.problem, .neverReplaced(.fifo), "\(error)")
            }
        }
        // A device where the backup would go is not renamed over either.
        let other = folder + "/q.json"
        try AtomicFile.write([1], to: other, keepBackup: false)
        guard mknod(other + ".bak", S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 else {
            throw XCTSkip("cannot make a device node here (\(String(cString: strerror(errno)))): not root, or a nodev file system")
        }
        XCTAssertThrowsError(try AtomicFile.write([2], to: other)) { error in
            XCTAssertEqual((error as? OutputFileError)?.problem, .neverReplaced(.characterDevice), "\(error)")
            XCTAssertEqual((error as? OutputFileError)?.path, other + ".bak", "\(error)")
        }
        var st = stat()
        XCTAssertEqual(lstat(other + ".bak", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR)
        XCTAssertEqual(try AtomicFile.read(path: other), [1])
        XCTAssertEqual(try entries(folder), ["p.json", "q.json", "q.json.bak"])
    }

    func testCheckWritableLeavesNothingBehind() throws {
        let folder = try makeScratchFolder(self)
        try AtomicFile.checkWritable(folder + "/new/profiles/p.json")
        XCTAssertEqual(try entries(folder + "/new/profiles"), [], "the folder is made, the probe file removed")
    }
}

/// A small deterministic generator for test data.
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
