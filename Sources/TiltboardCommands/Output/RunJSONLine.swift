import Tiltboard
import TiltboardCore

extension JSONLineWriter {
    /// One `tiltboard run` line into the buffer, replacing what was there:
    /// `{"t":…,"tilt":{"pitchDeg":…,"rollDeg":…,"trusted":bool},"control":{"x":…,"y":…,"vx":…,"vy":…,"headingDeg":…},"shake":bool,"haptic":bool}`
    /// and a newline. `trusted` is false while the tilt cannot be gravity (an accelerometer-only
    /// chip under linear acceleration); the control values then hold. `haptic`: the motor is playing an effect. `dropped`: lines the output has
    /// dropped so far because a reader fell behind, written as `"dropped":N` once there are any.
    /// `player`: with several boards, which one the line is about (1 for the first), written
    /// first as `"player":N`; nil with one board.
    package mutating func writeRunLine(_ out: PipelineOutput, haptic: Bool, dropped: UInt64 = 0, player: Int? = nil) {
        reset()
        beginObject()
        if let player { integer("player", player) }
        writeRunFields(out, haptic: haptic, dropped: dropped)
        endObject()
        newline()
    }

    /// The fields of a `tiltboard run` line, appended to an object the caller has begun.
    package mutating func writeRunFields(_ out: PipelineOutput, haptic: Bool, dropped: UInt64 = 0) {
        let tilt = out.tilt
        number("t", out.t, fractionDigits: 4)
        beginObject("tilt")
        number("pitchDeg", tilt.pitchDeg, fractionDigits: 2)
        number("rollDeg", tilt.rollDeg, fractionDigits: 2)
        bool("trusted", out.tiltTrusted)
        endObject()
        beginObject("control")
        number("x", out.control.x, fractionDigits: 4)
        number("y", out.control.y, fractionDigits: 4)
        number("vx", out.control.vx, fractionDigits: 4)
        number("vy", out.control.vy, fractionDigits: 4)
        number("headingDeg", out.control.headingDeg, fractionDigits: 1)
        endObject()
        bool("shake", out.shaking)
        bool("haptic", haptic)
        if dropped > 0 { integer("dropped", Int(clamping: dropped)) }
    }
}
