import TiltboardCore

extension CalibrationProfile {
    /// The sensor correction as the pipeline applies it (identity when none was measured).
    public var sensorCalibration: SensorCalibration {
        guard let s = sensor else { return .identity }
        return SensorCalibration(offsetG: s.offsetG, scale: s.scale, crossAxis: s.crossAxis, gyroBiasDps: s.gyroBiasDps)
    }

    /// The neutral pose as the pipeline applies it.
    public var neutralPose: NeutralPose {
        NeutralPose(rotation: neutral.rotation, meanRawG: neutral.meanRawG, tiltDeg: neutral.tiltDeg, clamped: neutral.clamped)
    }
}

extension CalibrationProfile.Neutral {
    /// The stored form of a captured neutral pose.
    public init(_ pose: NeutralPose) {
        self.init(rotation: pose.rotation, meanRawG: pose.meanRawG, tiltDeg: pose.tiltDeg, clamped: pose.clamped)
    }
}
