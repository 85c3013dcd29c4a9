import XCTest
@testable import Tiltboard
import TiltboardCommands

final class MonitorScreenTests: XCTestCase {
    private let screen = MonitorScreen(columns: 80, rows: 24)

    private func cells(of character: Character, in lines: [String]) -> [(column: Int, row: Int)] {
        var found: [(Int, Int)] = []
        for (r, line) in lines.enumerated() {
            for (c, ch) in line.enumerated() where ch == character { found.append((c, r)) }
        }
        return found
    }

    func testEveryLineFillsExactly80By24() {
        let lines = screen.lines(MonitorView(boardName: "bench board", rateHz: 99.96, latenessP99Ms: 0.123, pitchDeg: -12.34,
                                             rollDeg: 5.67, x: 0.25, y: -0.5, neutralTiltDeg: 3.21, shakes: 2,
                                             note: String(repeating: "long note ", count: 20) + "/path/p.json"))
        XCTAssertEqual(lines.count, 24)
        XCTAssertEqual(Set(lines.map(\.count)), [80])
        XCTAssertTrue(lines[0].hasPrefix(" tiltboard monitor  bench board"))
        XCTAssertTrue(lines[0].hasSuffix("100.0 Hz  late p99 0.12 ms "))
        XCTAssertEqual(lines[1], "+" + String(repeating: "-", count: 78) + "+")
        XCTAssertEqual(lines[19], lines[1])
        XCTAssertTrue(lines[20].hasPrefix(" shake "), lines[20])
        for r in 2...18 { XCTAssertTrue(lines[r].hasPrefix("|") && lines[r].hasSuffix("|"), "row \(r)") }
        XCTAssertEqual(lines[21], " pitch  -12.3°  roll   +5.7°  x   +0.25  y   -0.50  neutral 3.2°  shakes 2".padding(toLength: 80, withPad: " ", startingAt: 0))
        // The over-long note keeps its start and its file name.
        XCTAssertTrue(lines[22].hasPrefix(" long note long note"))
        XCTAssertTrue(lines[22].hasSuffix("note /path/p.json "))
        XCTAssertTrue(lines[22].contains("…"))
        XCTAssertEqual(lines[23], " c: set neutral  z: zero  q: quit".padding(toLength: 80, withPad: " ", startingAt: 0))
    }

    func testMarkerPositionForTheCornersAndTheCentre() {
        // Inner area: columns 1…78, rows 2…18; +y is forward, drawn up.
        let cases: [(x: Double, y: Double, column: Int, row: Int)] = [
            (-1, 1, 1, 2), (1, 1, 78, 2), (-1, -1, 1, 18), (1, -1, 78, 18),
            (0, 0, 40, 10), (-1, 0, 1, 10), (1, 0, 78, 10), (0, 1, 40, 2), (0, -1, 40, 18),
            // Out of range stays on the edge; NaN is the centre.
            (-3, 7, 1, 2), (.nan, .nan, 40, 10),
        ]
        for c in cases {
            let cell = screen.markerCell(x: c.x, y: c.y)
            XCTAssertEqual(cell.column, c.column, "x \(c.x), y \(c.y)")
            XCTAssertEqual(cell.row, c.row, "x \(c.x), y \(c.y)")
            let lines = screen.lines(MonitorView(boardName: "b", x: c.x, y: c.y))
            let markers = cells(of: MonitorScreen.markerCharacter, in: lines)
            XCTAssertEqual(markers.count, 1)
            XCTAssertEqual(markers.first?.column, c.column)
            XCTAssertEqual(markers.first?.row, c.row)
        }
        // The centre mark shows until the marker covers it.
        XCTAssertEqual(cells(of: "+", in: Array(screen.lines(MonitorView(boardName: "b", x: 1, y: 1))[2...18])).map(\.column), [40])
        XCTAssertEqual(cells(of: "+", in: Array(screen.lines(MonitorView(boardName: "b"))[2...18])).count, 0)
    }

    func testTheAreaGrowsWithTheTerminal() {
        let big = MonitorScreen(columns: 120, rows: 40)
        XCTAssertEqual(big.markerCell(x: 1, y: -1).column, 118)
        XCTAssertEqual(big.markerCell(x: 1, y: -1).row, 34)
        let lines = big.lines(MonitorView(boardName: "b"))
        XCTAssertEqual(lines.count, 40)
        XCTAssertEqual(Set(lines.map(\.count)), [120])
        XCTAssertEqual(lines[35], "+" + String(repeating: "-", count: 118) + "+")
    }

    func testShakeFlashInvertsTheBordersAndShowsTheBanner() {
        let calm = MonitorView(boardName: "b")
        var shaken = calm
        shaken.flash = true
        XCTAssertFalse(screen.lines(calm).joined().contains(MonitorScreen.shakeBanner))
        let top = screen.lines(shaken)[1]
        XCTAssertEqual(top, "+" + String(repeating: "-", count: 35) + " SHAKE! " + String(repeating: "-", count: 35) + "+")

        let calmFrame = String(decoding: screen.frame(calm), as: UTF8.self)
        let flashFrame = String(decoding: screen.frame(shaken), as: UTF8.self)
        XCTAssertFalse(calmFrame.contains("\u{1B}[7m"))
        XCTAssertTrue(flashFrame.contains("\u{1B}[2;1H\u{1B}[7m\(top)\u{1B}[27m"))
        XCTAssertTrue(flashFrame.contains("\u{1B}[20;1H\u{1B}[7m+---"))
        XCTAssertEqual(flashFrame.components(separatedBy: "\u{1B}[7m").count - 1, 2, "only the two borders invert")
    }

    func testFrameOverwritesEveryLineInPlaceWithoutClearing() {
        let view = MonitorView(boardName: "b", x: 0.5)
        let frame = String(decoding: screen.frame(view), as: UTF8.self)
        XCTAssertFalse(frame.contains("\u{1B}[2J"))
        XCTAssertFalse(frame.contains("\u{1B}[K"))
        XCTAssertTrue(frame.hasPrefix("\u{1B}[0m\u{1B}[1;1H"))
        let lines = screen.lines(view)
        for (i, line) in lines.enumerated() {
            // The last cell of the last row stays unwritten so the terminal cannot scroll.
            let expected = i == 23 ? String(line.dropLast()) : line
            XCTAssertTrue(frame.contains("\u{1B}[\(i + 1);1H\(expected)"), "row \(i + 1)")
        }
        XCTAssertTrue(frame.hasSuffix(String(lines[23].dropLast())))
    }

    func testTooSmallShowsOnlyAMessage() {
        let small = MonitorScreen(columns: 40, rows: 10)
        XCTAssertFalse(small.fits)
        XCTAssertTrue(MonitorScreen(columns: 80, rows: 24).fits)
        XCTAssertFalse(MonitorScreen(columns: 79, rows: 24).fits)
        XCTAssertFalse(MonitorScreen(columns: 80, rows: 23).fits)
        let lines = small.lines(MonitorView(boardName: "b"))
        XCTAssertEqual(lines.count, 10)
        XCTAssertEqual(Set(lines.map(\.count)), [40])
        let text = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        XCTAssertEqual(text, "terminal is 40×10; tiltboard monitor needs at least 80×24: enlarge the window")
        XCTAssertFalse(lines.joined().contains(MonitorScreen.markerCharacter))
    }

    func testTheSparklineShowsLinearAccelerationAgainstTheThresholdAndTheMotor() {
        // 0…2× the threshold in eight levels: under 0.8 g the lower four, at or over it ▅ and up.
        let values = [0, 0.1, 0.2, 0.3, 0.5, 0.79, 0.8, 1.0, 1.2, 1.4, 1.6, 5, .nan]
        XCTAssertEqual(String(values.map { MonitorScreen.sparkCell($0, thresholdG: 0.8) }), "▁▁▂▂▃▄▅▆▇███▁")
        var view = MonitorView(boardName: "b")
        view.linearG = [0, 0.3, 0.9, 1.7, 0.42]
        view.thresholdG = 0.8
        view.motorOn = true
        let line = screen.lines(view)[20]
        XCTAssertEqual(line.count, 80)
        let tail = "  0.42 g, ▅+ ≥ 0.80 g  motor ON "
        let room = 78 - " shake".count - tail.count
        XCTAssertEqual(room, 40)
        XCTAssertEqual(line, " shake " + String(repeating: " ", count: room - 5) + "▁▂▅█▃" + tail + " ")
        // A longer history than fits: the newest values, right-aligned; a board without a motor.
        view.linearG = [Double](repeating: 2, count: 200) + [0]
        view.motorOn = nil
        let full = screen.lines(view)[20]
        XCTAssertEqual(full.count, 80)
        XCTAssertTrue(full.hasSuffix("█▁  0.00 g, ▅+ ≥ 0.80 g  no motor "), full)
        XCTAssertEqual(full.filter { $0 == "█" }.count, 78 - "shake ".count - "  0.00 g, ▅+ ≥ 0.80 g  no motor".count - 1)
        // The status lines keep their rows.
        XCTAssertTrue(screen.lines(view)[21].hasPrefix(" pitch"))
        XCTAssertEqual(screen.lines(view)[23], " c: set neutral  z: zero  q: quit".padding(toLength: 80, withPad: " ", startingAt: 0))
    }
}
