/// A chip on the simulated bus, seen as a register file with side effects.
///
/// Each call is one bus transaction whose write phase began with the sub-address byte
/// `register`. The part decodes it with its `RegisterMap` (the driver's): which register, and
/// whether a burst auto-increments (always on the MPU-6050 family and the ADXL345, but for the
/// MPU FIFO port; only with bit 7 set on ST parts).
public protocol SimulatedI2CDevice: AnyObject {
    /// Fills `into` from the registers the sub-address `register` starts at.
    func read(register: UInt8, into: UnsafeMutableRawBufferPointer)
    /// Stores `bytes` into the registers the sub-address `register` starts at.
    func write(register: UInt8, bytes: UnsafeRawBufferPointer)
    /// Returns the chip to its power-on state, as a brown-out or a replug does: the registers at
    /// the values the drivers' register maps give for power-on, sampling stopped.
    func powerOnReset()
}
