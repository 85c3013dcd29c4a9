import TiltboardCore

extension ChipKind {
    /// Opens this chip's driver at `address`, identifying the chip (see `MPU6050.init`, `ADXL345.init`).
    public func openSensor(bus: I2CBus, address: UInt8, clock: MonotonicClock) throws -> MotionSensor {
        switch self {
        case .mpu6050: return try MPU6050(bus: bus, address: address, clock: clock)
        case .adxl345: return try ADXL345(bus: bus, address: address, clock: clock)
        case .lis3dh: return try LIS3DH(bus: bus, address: address, clock: clock)
        }
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
    /// Looks at each address and names what answers: the MPU-6050 family by WHO_AM_I (0x75), the
    /// ADXL345 by DEVID (0x00). Absent addresses (`.noAcknowledgeAddress`) are left out; other bus
    /// errors propagate.
    ///
    /// At the ADXL345's addresses DEVID is read first, elsewhere WHO_AM_I, so each chip is first
    /// asked for its own ID register.
    public static func probe(bus: I2CBus, addresses: [UInt8]) throws -> [ProbeResult] {
        var found: [ProbeResult] = []
        for address in addresses {
            do {
                if ChipKind.adxl345.addresses.contains(address) {
                    if let r = try probeADXL345(bus, address) ?? probeMPU6050(bus, address) { found.append(r) }
                    else { found.append(ProbeResult(address: address, chip: nil, part: "unknown device", chipID: nil)) }
                } else {
                    if let r = try probeMPU6050(bus, address) ?? probeADXL345(bus, address) { found.append(r) }
                    else { found.append(ProbeResult(address: address, chip: nil, part: "unknown device", chipID: nil)) }
                }
            } catch let error as I2CError where error.kind == .noAcknowledgeAddress {
                continue
            }
        }
        return found
    }
}

private func probeMPU6050(_ bus: I2CBus, _ address: UInt8) throws -> ProbeResult? {
    let id = try bus.readByte(address: address, register: MPU6050Register.whoAmI)
    guard let variant = MPU6050Variant.variant(chipID: id) else { return nil }
    return ProbeResult(address: address, chip: .mpu6050, part: variant.part, chipID: id)
}

private func probeADXL345(_ bus: I2CBus, _ address: UInt8) throws -> ProbeResult? {
    let id = try bus.readByte(address: address, register: ADXL345Register.deviceID)
    guard id == ADXL345.deviceID else { return nil }
    return ProbeResult(address: address, chip: .adxl345, part: ChipKind.adxl345.partName, chipID: id)
}
