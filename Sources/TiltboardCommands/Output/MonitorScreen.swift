import Foundation
import Tiltboard

/// What the monitor shows in one frame: the latest sample's view plus the session's status.
package struct MonitorView: Sendable, Equatable {
    /// The board file's name, shown in the header.
    package var boardName: String
    /// Samples per second measured over the last second; nil until known.
    package var rateHz: Double?
    /// Loop lateness p99, milliseconds; nil until known.
    package var latenessP99Ms: Double?
    /// Tilt relative to the neutral pose (`TiltAngles` convention), degrees.
    package var pitchDeg: Double
    package var rollDeg: Double
    /// The controlled marker, −1…1 each way; +y is forward, drawn up.
    package var x: Double
    package var y: Double
    /// The neutral pose's angle from level, degrees, and whether it was clamped.
    package var neutralTiltDeg: Double
    package var neutralClamped: Bool
    /// Shakes seen so far.
    package var shakes: Int
    /// Draw the shake flash (frame and banner inverted).
    package var flash: Bool
    /// One line of feedback after a key (`neutral saved to …`), or nil.
    package var note: String?
    /// The linear acceleration the shake detector saw, g, oldest first: one value per frame
    /// (the largest since the one before); the newest ones that fit are drawn as a sparkline.
    package var linearG: [Double] = []
    /// The detector's threshold, g.
    package var thresholdG: Double = 0.8
    /// The motor is playing an effect; nil when the board has no motor.
    package var motorOn: Bool?

    /// A view with everything at rest unless given.
    package init(boardName: String, rateHz: Double? = nil, latenessP99Ms: Double? = nil, pitchDeg: Double = 0,
                rollDeg: Double = 0, x: Double = 0, y: Double = 0, neutralTiltDeg: Double = 0,
                neutralClamped: Bool = false, shakes: Int = 0, flash: Bool = false, note: String? = nil) {
        self.boardName = boardName; self.rateHz = rateHz; self.latenessP99Ms = latenessP99Ms
        self.pitchDeg = pitchDeg; self.rollDeg = rollDeg; self.x = x; self.y = y
        self.neutralTiltDeg = neutralTiltDeg; self.neutralClamped = neutralClamped
        self.shakes = shakes; self.flash = flash; self.note = note
    }
}

/// The monitor's screen for a terminal of a given size: a header, the framed marker area filling
/// the width, and three status lines. Pure: it builds text, the caller writes it.
///
/// Only ASCII is drawn inside the frame, so the screen survives any terminal and locale over SSH.
package struct MonitorScreen: Sendable, Equatable {
    /// The smallest terminal the screen is laid out for.
    package static let minimumColumns = 80
    package static let minimumRows = 24
    /// The marker and the centre mark.
    package static let markerCharacter: Character = "@"
    package static let centreCharacter: Character = "+"
    /// Shown in the top border while the shake flash is on.
    package static let shakeBanner = " SHAKE! "
    /// The key help on the last line.
    package static let keyHelp = "c: set neutral  z: zero  q: quit"
    /// The sparkline's eight levels: 0 to twice the threshold, so a value at or over the
    /// threshold is drawn with one of the upper four (▅▆▇█) and one under it with a lower one.
    package static let sparkLevels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The terminal's size the screen is laid out for.
    package let columns: Int
    package let rows: Int

    /// The layout for a `columns`×`rows` terminal.
    package init(columns: Int, rows: Int) {
        self.columns = columns; self.rows = rows
    }

    /// False when the terminal is smaller than 80×24; `lines` then holds only a message.
    package var fits: Bool { columns >= Self.minimumColumns && rows >= Self.minimumRows }

    /// Rows of the frame's top and bottom border (0-based); the frame spans every column.
    package var frameTop: Int { 1 }
    package var frameBottom: Int { rows - 5 }
    /// The row of the shake sparkline, under the frame.
    package var sparklineRow: Int { rows - 4 }

    /// The cell (0-based column, row) the marker is drawn in: x −1…1 spans the inner columns
    /// left to right, y 1…−1 the inner rows top to bottom. Out-of-range values stay on the edge.
    package func markerCell(x: Double, y: Double) -> (column: Int, row: Int) {
        let innerWidth = columns - 2, innerHeight = frameBottom - frameTop - 1
        let cx = x.isNaN ? 0 : Swift.min(1, Swift.max(-1, x))
        let cy = y.isNaN ? 0 : Swift.min(1, Swift.max(-1, y))
        let column = 1 + Int(((cx + 1) / 2 * Double(innerWidth - 1)).rounded())
        let row = frameTop + 1 + Int(((1 - cy) / 2 * Double(innerHeight - 1)).rounded())
        return (column, row)
    }

    /// The message shown instead of the screen when the terminal is too small.
    package var tooSmallMessage: String {
        "terminal is \(columns)×\(rows); tiltboard monitor needs at least \(Self.minimumColumns)×\(Self.minimumRows): enlarge the window"
    }

    /// The screen as `rows` lines of exactly `columns` characters, without escape codes.
    package func lines(_ view: MonitorView) -> [String] {
        guard fits else { return tooSmallLines() }
        var grid = [[Character]](repeating: [Character](repeating: " ", count: columns), count: rows)
        put(&grid, row: 0, column: 0, " tiltboard monitor  \(view.boardName)")
        let rate = view.rateHz.map { "\(format($0, 1)) Hz" } ?? "-- Hz"
        let late = view.latenessP99Ms.map { "  late p99 \(format($0, 2)) ms" } ?? ""
        let right = "\(rate)\(late) "
        put(&grid, row: 0, column: Swift.max(0, columns - right.count), right)

        // The frame: border, centre mark, marker.
        for c in 0..<columns {
            grid[frameTop][c] = c == 0 || c == columns - 1 ? "+" : "-"
            grid[frameBottom][c] = grid[frameTop][c]
        }
        for r in (frameTop + 1)..<frameBottom {
            grid[r][0] = "|"
            grid[r][columns - 1] = "|"
        }
        if view.flash {
            put(&grid, row: frameTop, column: (columns - Self.shakeBanner.count) / 2, Self.shakeBanner)
        }
        let centre = markerCell(x: 0, y: 0)
        grid[centre.row][centre.column] = Self.centreCharacter
        let marker = markerCell(x: view.x, y: view.y)
        grid[marker.row][marker.column] = Self.markerCharacter

        let neutral = "neutral \(format(view.neutralTiltDeg, 1))°\(view.neutralClamped ? " (clamped)" : "")"
        put(&grid, row: rows - 3, column: 1,
            "pitch \(signed(view.pitchDeg, 1))°  roll \(signed(view.rollDeg, 1))°  x \(signed(view.x, 2))  y \(signed(view.y, 2))  \(neutral)  shakes \(view.shakes)")
        if let note = view.note {
            // A long note loses its middle: what happened is at the start, the file name at the end.
            let room = columns - 2
            let head = room * 2 / 5
            put(&grid, row: rows - 2, column: 1,
                note.count <= room ? note : String(note.prefix(head)) + "…" + String(note.suffix(room - head - 1)))
        }
        put(&grid, row: sparklineRow, column: 1, sparkline(view))
        put(&grid, row: rows - 1, column: 1, Self.keyHelp)
        return grid.map { String($0) }
    }

    /// `shake ▁▂▅█▃▁  0.42 g, ▅+ ≥ 0.80 g  motor off`: the newest values that fit, the latest value,
    /// the threshold and the motor, in `columns` − 2 characters.
    package func sparkline(_ view: MonitorView) -> String {
        let latest = view.linearG.last ?? 0
        let motor = view.motorOn.map { $0 ? "motor ON " : "motor off" } ?? "no motor"
        let tail = "  \(format(latest, 2)) g, ▅+ ≥ \(format(view.thresholdG, 2)) g  \(motor)"
        let head = "shake "
        let room = Swift.max(0, columns - 2 - head.count - tail.count)
        let shown = view.linearG.suffix(room)
        var cells = String(repeating: " ", count: room - shown.count)
        for v in shown { cells.append(Self.sparkCell(v, thresholdG: view.thresholdG)) }
        return head + cells + tail
    }

    /// The level for `value`: 0…2×threshold in eight steps, the threshold itself on ▅.
    package static func sparkCell(_ value: Double, thresholdG: Double) -> Character {
        guard value.isFinite, thresholdG > 0 else { return sparkLevels[0] }
        // A hair of slack, so 1.2 / 0.8 × 4 lands on 6 and not on 5.999…
        let step = Int((value / thresholdG * 4 + 1e-9).rounded(.down))
        return sparkLevels[Swift.min(sparkLevels.count - 1, Swift.max(0, step))]
    }

    /// The whole frame as bytes for one `write`: each line placed with a cursor move and
    /// overwritten in full (no clear, so no flicker), the frame's border rows inverted while the
    /// flash is on. The bottom-right cell is left unwritten so the terminal never scrolls.
    package func frame(_ view: MonitorView) -> [UInt8] {
        let text = lines(view)
        var out = "\u{1B}[0m"
        out.reserveCapacity((columns + 16) * rows)
        for (i, line) in text.enumerated() {
            out += "\u{1B}[\(i + 1);1H"
            let visible = i == rows - 1 ? String(line.dropLast()) : line
            let inverted = fits && view.flash && (i == frameTop || i == frameBottom)
            out += inverted ? "\u{1B}[7m\(visible)\u{1B}[27m" : visible
        }
        return Array(out.utf8)
    }

    private func tooSmallLines() -> [String] {
        var lines = [String](repeating: String(repeating: " ", count: Swift.max(columns, 0)), count: Swift.max(rows, 0))
        guard rows > 0, columns > 0 else { return lines }
        // Word-wrapped, so the whole message is readable in even a tiny window.
        var wrapped: [String] = []
        var current = ""
        for word in tooSmallMessage.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > columns {
                wrapped.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        if !current.isEmpty { wrapped.append(current) }
        for (i, text) in wrapped.prefix(rows).enumerated() {
            lines[i] = pad(String(text.prefix(columns)))
        }
        return lines
    }

    private func pad(_ s: String) -> String {
        s.count >= columns ? String(s.prefix(columns)) : s + String(repeating: " ", count: columns - s.count)
    }

    private func put(_ grid: inout [[Character]], row: Int, column: Int, _ text: String) {
        guard row >= 0, row < rows else { return }
        var c = column
        for ch in text where c < columns {
            if c >= 0 { grid[row][c] = ch }
            c += 1
        }
    }
}

private func format(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value.isFinite ? value : 0)
}

private func signed(_ value: Double, _ digits: Int) -> String {
    // Fixed width so the status line does not jitter as signs and digits change; no "-0.0".
    let limit = 0.5 / pow(10, Double(digits))
    let v = value.isFinite && abs(value) >= limit ? value : 0
    return String(format: "%+\(digits + 5).\(digits)f", v)
}
