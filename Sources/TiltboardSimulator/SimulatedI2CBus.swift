import TiltboardCore
import TiltboardDrivers

/// An I²C bus whose devices are simulated chips.
///
/// Counts traffic and bus time, can record every transaction, and can make transactions
/// fail the way the Linux adapter does (with the kernel's errno values). A failed
/// transaction never reaches the device, so it has no side effect there.
public final class SimulatedI2CBus: I2CBus {
    public let name: String
    /// SCL frequency used to estimate bus time.
    public let clockHz: Double

    /// Transactions attempted, including failed ones.
    public private(set) var transactionCount = 0
    /// Data bytes moved by successful transactions (register address bytes excluded).
    package private(set) var bytesTransferred = 0
    /// Estimated time the bus was busy: about 30 + 9·N clocks per transaction of N data bytes.
    package private(set) var busTimeSeconds = 0.0

    /// When true, every transaction is appended to `trace` (this allocates; off by default).
    public var recordsTrace = false
    /// Recorded transactions, oldest first.
    public var trace: [I2CTransaction] = []
    /// True once `close()` was called. The simulated devices stay reachable after it (tests look
    /// at their registers once a session is closed).
    package private(set) var isClosed = false

    private var devices: [SimulatedI2CDevice?] = Array(repeating: nil, count: 128)
    private var pendingFaultKind: I2CError.Kind = .bus
    private var pendingFaults = 0
    private var randomFaultRate = 0.0
    private var randomFaultKind: I2CError.Kind = .bus
    private var randomState: UInt64 = 0
    private var faultPlan: FaultPlan?
    private var motorCoupling: SimulatedMotorCoupling?
    /// Each address's last sub-address, where a read without a write phase starts.
    private var lastSubAddress = [UInt8](repeating: 0, count: 128)

    public func close() { isClosed = true }

    /// A bus with no devices attached.
    public init(name: String = "simulated", clockHz: Double = 400_000) {
        self.name = name
        self.clockHz = clockHz
    }

    /// Makes `device` answer at the 7-bit `address`, replacing whatever answered there.
    public func attach(_ device: SimulatedI2CDevice, at address: UInt8) {
        devices[Int(address & 0x7F)] = device
    }

    /// Removes the device at `address`, as if it were unplugged.
    public func detach(at address: UInt8) {
        devices[Int(address & 0x7F)] = nil
    }

    /// The next `count` transactions fail with `kind` (e.g. `.noAcknowledgeAddress` for ENXIO,
    /// `.bus` for EIO, `.noAcknowledgeData` for EREMOTEIO).
    public func injectFault(_ kind: I2CError.Kind, count: Int = 1) {
        pendingFaultKind = kind
        pendingFaults = max(0, count)
    }

    /// Plays `faults` on the chip at `address`, their times counted from now on `clock`: failing
    /// transactions in their windows, and a power-on reset of the chip for each `reset` and
    /// `unplug` (applied before the first transaction after it, as nothing sees the chip before).
    package func schedule(faults: [SimulatedFault], address: UInt8, clock: MonotonicClock) {
        faultPlan = faults.isEmpty ? nil : FaultPlan(faults: faults, address: address, clock: clock)
    }

    /// Makes the board's motor disturb the chip at `address` as `noise` says (`SimulatedMotorNoise`),
    /// its random draws seeded by `seed`. The returned coupling is told of each switch of the
    /// motor line; until then the motor counts as off.
    package func couple(motorNoise noise: SimulatedMotorNoise, address: UInt8, clock: MonotonicClock,
                       seed: UInt64) -> SimulatedMotorCoupling {
        let coupling = SimulatedMotorCoupling(noise: noise, address: address, clock: clock, seed: seed)
        motorCoupling = coupling
        return coupling
    }

    /// Each transaction fails with probability `rate` (0 turns it off), reproducibly for `seed`.
    package func setRandomFaults(rate: Double, kind: I2CError.Kind = .bus, seed: UInt64 = 1) {
        randomFaultRate = min(max(rate, 0), 1)
        randomFaultKind = kind
        randomState = seed
    }

    /// Clears the counters and the trace.
    package func resetStatistics() {
        transactionCount = 0
        bytesTransferred = 0
        busTimeSeconds = 0
        trace.removeAll()
    }

    /// One transaction: a write phase (its first byte is the device's sub-address, the rest data)
    /// and, when `read` is not empty, a read phase from that sub-address (from the last one when
    /// nothing was written). Recorded in `trace` as a read or a write starting at the sub-address.
    public func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                         pattern: I2CReadPattern) throws {
        let isRead = !read.isEmpty
        // Indexing, not `first`/`dropFirst()`: generic collection calls can allocate in debug builds.
        let sub = write.isEmpty ? lastSubAddress[Int(address & 0x7F)] : write[0]
        let data = write.isEmpty ? UnsafeRawBufferPointer(start: nil, count: 0)
            : UnsafeRawBufferPointer(start: write.baseAddress! + 1, count: write.count - 1)
        let count = isRead ? read.count : data.count
        if isRead && data.count > 0 {
            // A write phase with data before the repeated start: no driver does it, and where the
            // read would start is the part's business; refused rather than half done.
            throw I2CError(kind: .unsupported, device: name, address: address, register: sub,
                           refusal: .simulatedDataBeforeRead(dataBytes: data.count))
        }
        let (device, glitch) = try begin(isRead ? .read : .write, address: address, register: sub, count: count,
                                         written: isRead ? nil : data)
        lastSubAddress[Int(address & 0x7F)] = sub
        if isRead {
            device.read(register: sub, into: read)
            // Noise on the data line while the motor runs (`SimulatedMotorNoise.glitchRate`).
            if glitch { for i in 0..<read.count { read[i] ^= 0x40 } }
        } else {
            device.write(register: sub, bytes: data)
        }
        bytesTransferred += count
        if recordsTrace {
            trace.append(I2CTransaction(kind: isRead ? .read : .write, address: address, register: sub,
                                        bytes: isRead ? Array(read) : Array(data)))
        }
    }

    /// Accounts for the transaction and returns its device and whether the motor corrupts the
    /// data read, or throws the fault it hits.
    private func begin(_ kind: I2CTransaction.Kind, address: UInt8, register: UInt8, count: Int,
                       written: UnsafeRawBufferPointer?) throws -> (SimulatedI2CDevice, glitch: Bool) {
        transactionCount += 1
        busTimeSeconds += Double(30 + 9 * count) / clockHz
        var fault = scheduledFault(address: address, register: register)
        var glitch = false
        if fault == nil, let coupling = motorCoupling, coupling.address == address & 0x7F {
            let motor = coupling.transaction(now: coupling.clock.nowNanoseconds(), isBurstRead: kind == .read && count >= 6)
            if motor.reset { devices[Int(coupling.address)]?.powerOnReset() }
            switch motor.failure {
            case .noise?: fault = Self.kernelStyleError(.noAcknowledgeData, bus: name, address: address, register: register)
            case .brownOut?:
                fault = I2CError(kind: .noAcknowledgeAddress, device: name, address: address, register: register,
                                 detail: "simulated: brown-out")
            case nil: glitch = motor.glitch
            }
        }
        if fault != nil {
            // A scheduled fault wins over injected ones, which wait for the next transaction.
        } else if pendingFaults > 0 {
            pendingFaults -= 1
            fault = Self.kernelStyleError(pendingFaultKind, bus: name, address: address, register: register)
        } else if randomFaultRate > 0, nextUniform() < randomFaultRate {
            fault = Self.kernelStyleError(randomFaultKind, bus: name, address: address, register: register)
        } else if devices[Int(address & 0x7F)] == nil {
            fault = I2CError(kind: .noAcknowledgeAddress, device: name, address: address, register: register,
                             cause: .simulatedNoDevice)
        }
        if let fault {
            if recordsTrace {
                let bytes = written.map { Array($0) } ?? []
                trace.append(I2CTransaction(kind: kind, address: address, register: register, bytes: bytes,
                                            error: fault.kind))
            }
            throw fault
        }
        return (devices[Int(address & 0x7F)]!, glitch)
    }

    /// Applies the power-on resets the fault plan has due for the chip at `address`, and returns
    /// the error of the fault window it is in, if any.
    private func scheduledFault(address: UInt8, register: UInt8) -> I2CError? {
        guard var plan = faultPlan, plan.address == address & 0x7F else { return nil }
        let now = plan.clock.nowNanoseconds()
        if plan.resetsDue(now: now) > 0 {
            faultPlan = plan
            devices[Int(plan.address)]?.powerOnReset()
        }
        return plan.failing(now: now).map { Self.error(for: $0, bus: name, address: address, register: register) }
    }

    private func nextUniform() -> Double {
        randomState &+= 0x9E37_79B9_7F4A_7C15
        return Double(SplitMix64.mix(randomState) >> 11) * 0x1.0p-53
    }

    /// What a failing fault window does to a transaction.
    static func error(for kind: SimulatedFault.Kind, bus: String, address: UInt8, register: UInt8) -> I2CError {
        switch kind {
        case .nack:
            return kernelStyleError(.noAcknowledgeData, bus: bus, address: address, register: register)
        case .eio, .reset:  // a reset has no failing window
            return kernelStyleError(.bus, bus: bus, address: address, register: register)
        case .unplug:
            return I2CError(kind: .noAcknowledgeAddress, device: bus, address: address, register: register,
                            detail: "simulated: unplugged")
        }
    }

    /// The error the Linux i2c-dev adapter would report for `kind`: its errno and text, and the
    /// kind that errno reads back as there (`I2CFaultCodes`, the one table both use).
    static func kernelStyleError(_ kind: I2CError.Kind, bus: String, address: UInt8, register: UInt8) -> I2CError {
        guard let (errno, text) = I2CFaultCodes.errno(for: kind) else {
            return I2CError(kind: kind, device: bus, address: address, register: register, cause: .simulatedFault)
        }
        return I2CError(kind: I2CFaultCodes.kind(errno: errno), device: bus, address: address, register: register,
                        errno: errno, detail: text + " (simulated)")
    }
}

extension SimulatedI2CBus {
    /// Attaches an ideal simulated `kind` chip (the registry's reference part, powered on) at
    /// `address`, or at the chip's default address when nil, feeling `motion` as time passes on
    /// `clock`. A test opens the chip's driver on this bus afterwards, as it would on a real one:
    /// `try ChipKind.mpu6050.openSensor(bus: bus, address: 0x68, clock: clock)`.
    public func attachChip(_ kind: ChipKind, at address: UInt8? = nil, clock: any MonotonicClock,
                           motion: any MotionSource) {
        let chip = SimulatedChipRegistry.factory(for: kind)
            .makeChip(chipID: nil, clock: clock, motion: motion, imperfections: .ideal)
        attach(chip, at: address ?? kind.addresses[0])
    }
}
