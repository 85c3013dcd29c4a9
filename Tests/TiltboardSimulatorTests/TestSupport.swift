import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

/// A motion that never changes.
struct Constant: MotionSource {
    var accel: Vector3
    var gyro: Vector3 = .zero
    var tempC: Double = 25
    func state(at t: Double) -> PhysicalState { PhysicalState(accelG: accel, gyroDps: gyro, tempC: tempC) }
    var duration: Duration? { nil }
}

/// A motion whose values identify the instant they belong to: accel.x = t g, gyro.x = 100·t °/s, temperature 25 + 100·t °C.
struct Ramp: MotionSource {
    func state(at t: Double) -> PhysicalState {
        PhysicalState(accelG: Vector3(t, 0, 1 + t), gyroDps: Vector3(100 * t, 0, 0), tempC: 25 + 100 * t)
    }
    var duration: Duration? { nil }
}

func int16BE(_ b: [UInt8], _ i: Int) -> Int { Int(Int16(bitPattern: UInt16(b[i]) << 8 | UInt16(b[i + 1]))) }
func int16LE(_ b: [UInt8], _ i: Int) -> Int { Int(Int16(bitPattern: UInt16(b[i + 1]) << 8 | UInt16(b[i]))) }

extension ManualClock {
    func advance(ms: Double) { advance(bySeconds: ms / 1000) }
}
