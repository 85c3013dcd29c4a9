import TiltboardLinux
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Raw mode, key decoding and window size on a real pseudo-terminal.
final class TerminalTests: XCTestCase {
    private func drain(_ pty: PseudoTerminal) -> String {
        var bytes: [UInt8] = []
        while let chunk = pty.read(timeoutMilliseconds: 100), !chunk.isEmpty { bytes += chunk }
        return String(decoding: bytes, as: UTF8.self)
    }

    func testEnterAndRestoreRoundTripTheSettingsAndTheScreen() throws {
        let pty = try PseudoTerminal()
        let before = try TerminalModes.of(fd: pty.slave)
        XCTAssertTrue(before.isCanonical)
        XCTAssertTrue(before.echoes)
        let terminal = try RawTerminal(input: pty.slave, output: pty.slave)
        XCTAssertFalse(terminal.isActive)

        try terminal.enter()
        let raw = try TerminalModes.of(fd: pty.slave)
        XCTAssertFalse(raw.isCanonical)
        XCTAssertFalse(raw.echoes)
        XCTAssertFalse(raw.generatesSignals)
        XCTAssertEqual(raw.minimumBytes, 1)
        XCTAssertEqual(raw.timeoutDeciseconds, 0)
        XCTAssertEqual(raw.inputFlags & UInt32(ICRNL | IXON), 0)
        XCTAssertEqual(raw.outputFlags, before.outputFlags, "output processing is left alone")
        XCTAssertEqual(drain(pty), "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J\u{1B}[H")

        XCTAssertTrue(terminal.write(Array("frame".utf8)))
        XCTAssertEqual(drain(pty), "frame")

        terminal.restore()
        XCTAssertEqual(try TerminalModes.of(fd: pty.slave), before)
        XCTAssertEqual(drain(pty), "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        // Idempotent, and frames after restoring are dropped.
        terminal.restore()
        XCTAssertFalse(terminal.write(Array("late".utf8)))
        XCTAssertEqual(drain(pty), "")
        XCTAssertEqual(try TerminalModes.of(fd: pty.slave), before)
    }

    func testRestoreFromAnotherThreadWhileRaw() throws {
        let pty = try PseudoTerminal()
        let before = try TerminalModes.of(fd: pty.slave)
        let terminal = try RawTerminal(input: pty.slave, output: pty.slave)
        try terminal.enter(alternateScreen: false)
        let done = expectation(description: "restored")
        Thread {
            terminal.restore()
            done.fulfill()
        }.start()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try TerminalModes.of(fd: pty.slave), before)
        XCTAssertFalse(terminal.isActive)
    }

    func testKeysArriveOneByOneInRawMode() throws {
        let pty = try PseudoTerminal()
        let terminal = try RawTerminal(input: pty.slave, output: pty.slave)
        try terminal.enter()
        defer { terminal.restore() }
        XCTAssertEqual(try terminal.readKeys(timeoutMilliseconds: 20), [])
        try pty.send(Array("c".utf8))
        XCTAssertEqual(try terminal.readKeys(timeoutMilliseconds: 2000), [.character(UInt8(ascii: "c"))])
        // Ctrl-C is a byte, not a signal, while raw.
        try pty.send([0x03])
        XCTAssertEqual(try terminal.readKeys(timeoutMilliseconds: 2000), [.interrupt])
        try pty.send([0x1B])
        XCTAssertEqual(try terminal.readKeys(timeoutMilliseconds: 2000), [.escape])
        try pty.send(Array("\u{1B}[A".utf8))
        XCTAssertEqual(try terminal.readKeys(timeoutMilliseconds: 2000), [.sequence])
        // No echo: nothing typed came back to the screen side.
        XCTAssertFalse(drain(pty).contains("c"))
    }

    func testDecodeSplitsKeysAndSequences() {
        XCTAssertEqual(TerminalKey.decode(Array("cz\u{1B}[1;5Aq\u{1B}OP\u{1B}".utf8)),
                       [.character(UInt8(ascii: "c")), .character(UInt8(ascii: "z")), .sequence,
                        .character(UInt8(ascii: "q")), .sequence, .escape])
        XCTAssertEqual(TerminalKey.decode([0x04, 0x03, 0x1B, 0x71]), [.endOfInput, .interrupt, .escape, .character(0x71)])
        XCTAssertEqual(TerminalKey.decode([UInt8]()), [])
    }

    func testWindowSizeComesFromTheKernel() throws {
        let pty = try PseudoTerminal()
        try pty.setSize(TerminalSize(columns: 132, rows: 43))
        XCTAssertEqual(TerminalSize.of(fd: pty.slave), TerminalSize(columns: 132, rows: 43))
        XCTAssertEqual(try RawTerminal(input: pty.slave, output: pty.slave).size(), TerminalSize(columns: 132, rows: 43))
        XCTAssertEqual(TerminalSize(columns: 80, rows: 24).description, "80×24")
    }

    func testANonTerminalIsRefused() throws {
        let fd = open("/dev/null", O_RDWR)
        defer { close(fd) }
        XCTAssertThrowsError(try RawTerminal(input: fd, output: fd)) { error in
            guard case .notATerminal? = (error as? TerminalError)?.step else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try TerminalModes.of(fd: fd))
        XCTAssertNil(TerminalSize.of(fd: fd))
    }

    func testHangUpReadsAsEndOfInput() throws {
        var pty: PseudoTerminal? = try PseudoTerminal()
        let slave = dup(pty!.slave)
        defer { close(slave) }
        let terminal = try RawTerminal(input: slave, output: slave)
        pty = nil  // closes the master (and the original slave fd)
        XCTAssertEqual(try terminal.readKeys(timeoutMilliseconds: 2000), [.endOfInput])
    }
}
