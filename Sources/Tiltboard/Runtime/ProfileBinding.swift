import TiltboardCore

extension CalibrationProfile {
    /// The sensor correction as the pipeline applies it (identity when none was measured).
    /// The gyro bias is the neutral capture's when there is one (the newer measurement).
    package var sensorCalibration: SensorCalibration {
        guard let s = sensor else { return SensorCalibration(offsetG: .zero, scale: .one, gyroBiasDps: gyroBiasDps) }
        return SensorCalibration(offsetG: s.offsetG, scale: s.scale, crossAxis: s.crossAxis,
                                 gyroBiasDps: gyroBiasDps ?? s.gyroBiasDps)
    }
}
