/// Register-accurate simulations of the MPU-6050, the ADXL345 and a GPIO line.
///
/// Wiring: `SimulatedI2CBus` (an `I2CBus`) with `SimulatedMPU6050` / `SimulatedADXL345`
/// attached at their addresses, each driven by a `MotionSource` (`MotionScript`, `TraceMotion`)
/// and optionally `SensorImperfections`; `SimulatedGPIOLine` (a `GPIOOutputLine`) stands in for
/// the motor. Everything runs on a `MonotonicClock`, usually `ManualClock` in tests.
public enum TiltboardSimulator {}
