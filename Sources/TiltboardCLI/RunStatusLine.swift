import Tiltboard
import TiltboardCommands

/// The human status line of `tiltboard run`, built in reusable buffers (no allocation per line):
/// `t   3.20 s  pitch   0.4°  roll -29.7°  x -0.812  y  0.003  ◀ edge  SHAKE  MOTOR`.
struct RunStatusLine {
    private(set) var bytes: [UInt8] = []
    private var scratch = JSONLineWriter(capacity: 32)

    init() { bytes.reserveCapacity(160) }

    /// `player`: with several boards, which one (1 for the first): the line starts `player N  `.
    mutating func make(_ out: PipelineOutput, haptic: Bool, player: Int? = nil) {
        bytes.removeAll(keepingCapacity: true)
        let tilt = out.tilt
        if let player {
            text("player ")
            var place = 1
            while player / place >= 10 { place *= 10 }
            while place > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(player / place % 10))
                place /= 10
            }
            text("  ")
        }
        text("t "); number(out.t, digits: 2, width: 7); text(" s  pitch ")
        number(tilt.pitchDeg, digits: 1, width: 6); text("°  roll ")
        number(tilt.rollDeg, digits: 1, width: 6); text("°  x ")
        number(out.control.x, digits: 3, width: 6); text("  y ")
        number(out.control.y, digits: 3, width: 6)
        if out.control.atEdgeX || out.control.atEdgeY { text("  edge") }
        if out.shaking { text("  SHAKE") }
        if haptic { text("  MOTOR") }
        bytes.append(UInt8(ascii: "\n"))
    }

    private mutating func text(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Right-aligned in `width` columns.
    private mutating func number(_ value: Double, digits: Int, width: Int) {
        scratch.reset()
        scratch.rawNumber(value, fractionDigits: digits, padded: true)
        for _ in 0..<max(0, width - scratch.bytes.count) { bytes.append(UInt8(ascii: " ")) }
        bytes.append(contentsOf: scratch.bytes)
    }
}
