import TiltboardCore
import TiltboardDrivers

/// A simulated part on the simulated bus: a register file with side effects that samples on
/// its own clock and drives an INT pin.
package protocol SimulatedChip: SimulatedI2CDevice, SimulatedInterruptSource {
    /// What the part feels; may be replaced at any time.
    var motion: MotionSource { get set }
    /// How far the part is from ideal; may be replaced at any time.
    var imperfections: SensorImperfections { get set }
    /// Sample ticks taken since power-on.
    var samplesTaken: UInt64 { get }
    /// Whole samples waiting in the FIFO as of the last bus transaction (0 with the FIFO off).
    var queuedFIFOFrames: Int { get }
    /// The motion-interrupt pin, for a board whose `interrupt` section wires it to a GPIO input.
    var interruptPin: SimulatedInterruptPin { get }
}

/// How to build the simulated part of one registered chip family, and the data-sheet figures
/// its seeded imperfect parts are drawn from. One value per family, listed in `SimulatedChipRegistry`.
package protocol SimulatedChipFactory: Sendable {
    /// The chip this simulates (its `ChipDescription` is `kind.chip`).
    var kind: ChipKind { get }
    /// The data sheet's limits, what `SensorImperfections.worstCase` draws at.
    var limits: DatasheetLimits { get }

    /// A powered-on part answering with `chipID` (nil: the reference part's ID), built from the
    /// variant table and register map of `kind.chip`. An ID the table does not accept makes the
    /// reference part answering with it, to exercise how drivers reject a wrong chip.
    func makeChip(chipID: UInt8?, clock: any MonotonicClock, motion: MotionSource,
                  imperfections: SensorImperfections) -> any SimulatedChip
    /// A typical part, errors drawn reproducibly from `seed` (see `SensorImperfections.datasheet`).
    func typicalPart(seed: UInt64) -> SensorImperfections
}

/// Reproducible draws in −1…1 (`SplitMix64.symmetric`) for a typical part seeded with `seed`.
/// Every family draws its zero-g offsets from draws 0–2 and its scale errors from 3–5.
struct TypicalPartDraws {
    let seed: UInt64

    func callAsFunction(_ i: UInt64) -> Double { SplitMix64.symmetric(seed: seed ^ 0x5EED_0FF5E7, index: i) }

    /// Draws `first`…`first` + 2, each axis within ±`bound`.
    func within(_ bound: Vector3, from first: UInt64) -> Vector3 {
        bound.scaled(by: Vector3(self(first), self(first + 1), self(first + 2)))
    }

    /// Zero-g offsets within ±`bound` g (draws 0–2).
    func zeroGOffsetG(within bound: Vector3) -> Vector3 { within(bound, from: 0) }

    /// Scale errors within ±`fraction` on every axis (draws 3–5).
    func scaleError(within fraction: Double) -> Vector3 { within(Vector3(fraction, fraction, fraction), from: 3) }
}

/// The simulated parts, one per entry of `ChipRegistry.all`.
package enum SimulatedChipRegistry {
    /// Every simulated chip family.
    package static let all: [any SimulatedChipFactory] = [SimulatedMPU6050Chip(), SimulatedADXL345Chip(), SimulatedLIS3DHChip(), SimulatedLSM9DS1Chip(), SimulatedICM20948Chip()]

    /// The factory for `kind`.
    package static func factory(for kind: ChipKind) -> any SimulatedChipFactory {
        guard let f = all.first(where: { $0.kind == kind }) else {
            preconditionFailure("no simulated part registered for chip \(kind)")
        }
        return f
    }
}
