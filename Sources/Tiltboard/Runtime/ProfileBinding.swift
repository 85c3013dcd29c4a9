import TiltboardCore

extension CalibrationProfile {
    /// The sensor correction as the pipeline applies it (identity when none was measured).
    public var sensorCalibration: SensorCalibration {
        guard let s = sensor else { return .identity }
        return SensorCalibration(offsetG: s.offsetG, scale: s.scale, crossAxis: s.crossAxis, gyroBiasDps: s.gyroBiasDps)
    }
}
