import Tiltboard
import TiltboardCore

/// The summary `calibrate` prints on stdout once a profile is saved.
enum CalibrateReport {
    static func neutral(_ r: NeutralCalibrationResult, path: String) -> String {
        let angles = TiltAngles(gravity: r.pose.meanRawG)
        var text = "neutral pose saved to \(path)\n"
        text += "  tilt from level  \(fixed(r.pose.tiltDeg, 2).trimmed)° (pitch \(fixed(angles.pitchDeg, 2).trimmed)°, roll \(fixed(angles.rollDeg, 2).trimmed)°)"
        text += r.pose.clamped ? ", compensated up to the maximum only\n" : "\n"
        text += "  mean reading     \(vector(r.pose.meanRawG, 4)) g\n"
        if let g = r.capture.gyroBiasDps { text += "  gyro bias        \(vector(g, 3)) °/s\n" }
        text += sampleLines(r.capture)
        return text
    }

    static func sensor(_ r: SensorCalibrationResult, writtenToChip: Bool, path: String) -> String {
        let c = r.fit.calibration
        var text = "sensor calibration saved to \(path)\n"
        text += "  offset           \(vector(c.offsetG * 1000, 2)) mg\n"
        text += "  scale            \(vector(c.scale, 5))\n"
        if let g = c.gyroBiasDps { text += "  gyro bias        \(vector(g, 3)) °/s\n" }
        text += "  residual         \(fixed(r.fit.residualMg, 2).trimmed) mg rms (worst face \(fixed(r.fit.maxResidualMg, 2).trimmed) mg)\n"
        text += sampleLines(r.capture)
        text += "  in chip          \(writtenToChip ? "yes: offsets programmed into the chip's offset registers" : "no: corrected in software")\n"
        return text
    }

    private static func sampleLines(_ c: CaptureSummary) -> String {
        var text = "  samples          \(c.sampleCount), noise \(vector(c.noiseMg, 2)) mg rms\n"
        if let t = c.temperatureC { text += "  temperature      \(fixed(t, 1).trimmed) °C\n" }
        return text
    }

    private static func vector(_ v: Vector3, _ digits: Int) -> String {
        "\(fixed(v.x, digits).trimmed) \(fixed(v.y, digits).trimmed) \(fixed(v.z, digits).trimmed)"
    }
}
