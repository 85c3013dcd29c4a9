import TiltboardDrivers

/// The libgpiod line already has the protocol's shape; the conformance lets the runtime take a
/// real or a simulated interrupt pin alike.
extension GpiodInputLine: GPIOInputLine {}
