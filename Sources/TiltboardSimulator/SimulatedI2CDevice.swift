/// A chip on the simulated bus, seen as a register file with side effects.
///
/// Each call is one bus transaction that starts at `register`. Both simulated chips
/// auto-increment the register pointer during a burst, except where the data sheet says
/// otherwise (the MPU-6050 FIFO port keeps popping; see the chip classes).
public protocol SimulatedI2CDevice: AnyObject {
    /// Fills `into` with consecutive register bytes starting at `register`.
    func read(register: UInt8, into: UnsafeMutableRawBufferPointer)
    /// Stores `bytes` into consecutive registers starting at `register`.
    func write(register: UInt8, bytes: UnsafeRawBufferPointer)
    /// Returns the chip to its power-on state, as a brown-out or a replug does: the registers at
    /// the values the drivers' register maps give for power-on, sampling stopped.
    func powerOnReset()
}
