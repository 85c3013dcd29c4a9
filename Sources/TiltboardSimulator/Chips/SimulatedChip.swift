import TiltboardCore
import TiltboardDrivers

/// A simulated part on the simulated bus: a register file with side effects that samples on
/// its own clock and drives an INT pin.
public protocol SimulatedChip: SimulatedI2CDevice, SimulatedInterruptSource {
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
public protocol SimulatedChipFactory: Sendable {
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

/// The simulated parts, one per entry of `ChipRegistry.all`.
public enum SimulatedChipRegistry {
    /// Every simulated chip family.
    public static let all: [any SimulatedChipFactory] = [SimulatedMPU6050Chip(), SimulatedADXL345Chip(), SimulatedLIS3DHChip()]

    /// The factory for `kind`.
    public static func factory(for kind: ChipKind) -> any SimulatedChipFactory {
        guard let f = all.first(where: { $0.kind == kind }) else {
            preconditionFailure("no simulated part registered for chip \(kind)")
        }
        return f
    }
}
