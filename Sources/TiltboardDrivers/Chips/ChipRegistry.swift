/// Every chip family the drivers support: the one list board-file validation, probe, bench,
/// the session, doctor and the CLI help iterate. Adding a chip is a line here, its folder, and
/// its simulated part's line in `SimulatedChipRegistry`.
package enum ChipRegistry {
    /// Every supported chip, in probe order.
    package static let all: [any ChipDescription] = [MPU6050Chip(), ADXL345Chip(), LIS3DHChip(), LSM9DS1Chip(), ICM20948Chip()]

    /// The description registered as `kind` (every `ChipKind` names a registered chip).
    package static func description(of kind: ChipKind) -> any ChipDescription {
        all.first { $0.kind == kind }!
    }

    /// The registered names, quoted, for messages: `"mpu6050", "adxl345"`.
    package static var names: String { all.map { "\"\($0.kind.rawValue)\"" }.joined(separator: ", ") }

    /// The registered parts for help text, `"MPU-6050, ADXL345 and …"` (`conjunction` "and" or
    /// "or"), those that `include` says only.
    package static func partNames(_ conjunction: String, where include: (any ChipDescription) -> Bool = { _ in true }) -> String {
        let names = all.filter(include).map(\.partName)
        guard names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " \(conjunction) " + names.last!
    }

    /// Every address some chip answers at, in registry order, without repeats.
    package static var addresses: [UInt8] {
        var seen: [UInt8] = []
        for chip in all { for a in chip.addresses where !seen.contains(a) { seen.append(a) } }
        return seen
    }

    /// Each chip at the first of its addresses that no chip before it in the registry takes
    /// (the ICM-20948 at 0x69, the MPU-6050 holding 0x68): one of each on a bus, as the
    /// simulated probe bus puts them.
    package static var oneOfEach: [(chip: any ChipDescription, address: UInt8)] {
        var taken: [UInt8] = []
        var placed: [(chip: any ChipDescription, address: UInt8)] = []
        for chip in all {
            guard let address = chip.addresses.first(where: { !taken.contains($0) }) else { continue }
            taken.append(address)
            placed.append((chip, address))
        }
        return placed
    }

    /// The devices that come with `chips` on the boards that carry them, by address, without
    /// repeats (`ChipDescription.companions`).
    package static func companions(of chips: [ChipKind]) -> [CompanionDevice] {
        var seen: [CompanionDevice] = []
        for chip in chips {
            for c in chip.details.companions where !seen.contains(where: { $0.address == c.address }) { seen.append(c) }
        }
        return seen
    }

    /// The chips to ask at `address`: those that answer there first (each is asked for its own
    /// ID register before another chip's register is read), then the rest in registry order.
    package static func candidates(at address: UInt8) -> [any ChipDescription] {
        all.filter { $0.addresses.contains(address) } + all.filter { !$0.addresses.contains(address) }
    }
}
