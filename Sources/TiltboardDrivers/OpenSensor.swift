import TiltboardCore

extension ChipKind {
    /// Opens this chip's driver at `address`, identifying the chip (`ChipDescription.makeDriver`).
    public func openSensor(bus: I2CBus, address: UInt8, clock: MonotonicClock) throws -> MotionSensor {
        try details.makeDriver(bus: bus, address: address, clock: clock)
    }
}

/// One device that answered during `probe`.
public struct ProbeResult: Sendable, Codable, Equatable {
    /// The 7-bit address that acknowledged.
    public var address: UInt8
    /// The chip family, nil for a device neither driver recognises.
    public var chip: ChipKind?
    /// Part name ("MPU-6050", "MPU-6500", "ADXL345") or "unknown device".
    public var part: String
    /// The ID register value that identified it.
    public var chipID: UInt8?

    /// A result as `probe` reports it.
    public init(address: UInt8, chip: ChipKind?, part: String, chipID: UInt8?) {
        self.address = address; self.chip = chip; self.part = part; self.chipID = chipID
    }
}

extension ChipKind {
    /// Looks at each address and names what answers, asking each registered chip for its ID
    /// register (`ChipRegistry.candidates`: the chips that answer at that address first, so each
    /// chip is first asked for its own ID register). Absent addresses (`.noAcknowledgeAddress`)
    /// are left out; other bus errors propagate.
    public static func probe(bus: I2CBus, addresses: [UInt8]) throws -> [ProbeResult] {
        var found: [ProbeResult] = []
        for address in addresses {
            do {
                found.append(try identify(bus, address)
                    ?? ProbeResult(address: address, chip: nil, part: "unknown device", chipID: nil))
            } catch let error as I2CError where error.kind == .noAcknowledgeAddress {
                continue
            }
        }
        return found
    }
}

/// Reads only: each candidate's ID register, each register once (the ADXL345 and the ICM-20948
/// both keep theirs at 0x00, the LIS3DH and LSM9DS1 at 0x0F), and never a bank select.
private func identify(_ bus: I2CBus, _ address: UInt8) throws -> ProbeResult? {
    var read: [UInt8: UInt8] = [:]
    for chip in ChipRegistry.candidates(at: address) {
        let id: UInt8
        if let known = read[chip.idRegister] {
            id = known
        } else {
            let device = RegisterDevice(bus: bus, address: address, map: chip.referenceVariant.registerMap)
            id = try device.readByte(chip.idRegister)
            read[chip.idRegister] = id
        }
        if let variant = chip.anyVariant(chipID: id) {
            return ProbeResult(address: address, chip: chip.kind, part: variant.part, chipID: id)
        }
    }
    return nil
}
