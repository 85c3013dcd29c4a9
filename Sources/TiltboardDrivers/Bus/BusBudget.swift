/// One I²C transaction as the bus carries it: `writeBytes` after the address (the sub-address
/// and any data), then, when `readBytes` is not 0, a repeated START, the address again and
/// `readBytes` read back.
///
/// Its length in SCL clocks follows the I²C-bus specification (NXP UM10204 rev. 7, §3.1): every
/// byte on the bus, the 7-bit address + R/W byte included, takes 8 clocks plus its acknowledge
/// (§3.1.5–3.1.6: 9 clocks a byte), and the START, the repeated START of the combined
/// write-then-read form (§3.1.10, Figure 13) and the STOP (§3.1.4) are counted as one clock each.
/// What the adapter and the kernel add between messages (clock stretching, the bus-free time
/// between a STOP and the next START, §6.1 Table 10 tBUF) is not counted: the figures are the
/// least a transaction takes.
package struct I2CTransferShape: Sendable, Equatable, Hashable {
    /// Bytes written after the address byte: the sub-address and any data.
    package var writeBytes: Int
    /// Bytes read back after a repeated START; 0 for a plain write.
    package var readBytes: Int

    package init(writeBytes: Int, readBytes: Int) {
        self.writeBytes = writeBytes; self.readBytes = readBytes
    }

    /// A register read: the sub-address written, `bytes` read back (the combined form).
    package static func registerRead(_ bytes: Int) -> I2CTransferShape { I2CTransferShape(writeBytes: 1, readBytes: bytes) }

    /// Bytes on the wire: the address byte of each phase and every byte written and read.
    package var wireBytes: Int {
        (writeBytes > 0 ? 1 + writeBytes : 0) + (readBytes > 0 ? 1 + readBytes : 0)
    }

    /// Data bytes as `CountingI2CBus` and the simulated bus count them: what was read, or what
    /// was written after the sub-address.
    package var dataBytes: Int { Swift.max(writeBytes - 1, 0) + readBytes }

    /// SCL clocks: 9 a byte, one each for START, the repeated START (when there is a write
    /// phase before the read) and STOP.
    package var clocks: Int {
        let conditions = writeBytes > 0 && readBytes > 0 ? 3 : 2
        return 9 * wireBytes + conditions
    }

    /// Seconds on a bus clocked at `clockHz`.
    package func seconds(clockHz: Double) -> Double { Double(clocks) / clockHz }
}

/// How a chip's driver empties its FIFO, one drain per loop tick (`MotionSensor.drainFIFO`).
package enum FIFODrainForm: Sendable, Equatable {
    /// A count register `countBytes` wide, then every whole frame in one read of the FIFO's data
    /// port (MPU-6050 family, ICM-20948).
    case countThenBatch(countBytes: Int)
    /// A one-byte FIFO status register, then one `ChipDescription.sampleBytes` burst per entry
    /// (ADXL345, LIS3DH, LSM9DS1). `statusAgainWhenFull`: a full FIFO's status is read a second
    /// time for the sample that moved in meanwhile (ADXL345, DS Register 0x39).
    case statusThenBursts(statusAgainWhenFull: Bool)
}

/// What one board's sampling costs its I²C bus: the transactions of one loop tick (one burst,
/// or one FIFO drain of `samplesPerTick` samples) as the chip's driver issues them, and the bus
/// time that takes at a given clock.
///
/// Built from the chip's description (`sampleBytes`, `fifoDrain`, the reference part's FIFO
/// frame), which the drivers read from too; a test holds every driver on a recording bus to the
/// transactions listed here.
package struct BusBudget: Sendable, Equatable {
    /// The chip.
    package var chip: ChipKind
    /// Output data rate, Hz.
    package var rateHz: Double
    /// Samples a tick takes: 1 without the FIFO, the batch a drain reads with it.
    package var samplesPerTick: Int
    /// Whether the samples come through the FIFO.
    package var fifo: Bool
    /// The transactions of one tick, in the driver's order.
    package var tickTransfers: [I2CTransferShape]
    /// One-byte configuration reads per second besides the samples (the loop's health check,
    /// `BusRecoverySettings.healthCheckSeconds`).
    package var checksPerSecond: Double

    /// The budget of `chip` at `rateHz`: one burst per sample, or with `fifo` one drain per
    /// `samplesPerTick` samples (held to 1 without the FIFO, and to the reference part's FIFO
    /// capacity with it), plus `checksPerSecond` one-byte reads.
    package init(chip: ChipKind, rateHz: Double, fifo: Bool, samplesPerTick: Int = 1, checksPerSecond: Double = 0) {
        let details = chip.details
        let capacity = details.referenceVariant.fifo?.capacityFrames ?? 1
        let batch = fifo ? Swift.min(Swift.max(samplesPerTick, 1), Swift.max(capacity, 1)) : 1
        self.chip = chip; self.rateHz = rateHz; self.fifo = fifo; self.samplesPerTick = batch
        self.checksPerSecond = checksPerSecond
        tickTransfers = fifo ? details.fifoDrainTransfers(samples: batch) : [.registerRead(details.sampleBytes)]
    }

    /// The batch a loop waking at `tickRateHz` drains from a FIFO filling at `rateHz`, counted
    /// low so the plan errs towards more bus time: rateHz / tickRateHz in whole samples, at least 1
    /// (500 Hz drained at 200 Hz finds 2 or 3: counted as 2).
    package static func batch(rateHz: Double, tickRateHz: Double) -> Int {
        guard rateHz > 0, tickRateHz > 0 else { return 1 }
        return Swift.max(Int((rateHz / tickRateHz + 1e-9).rounded(.down)), 1)
    }

    /// Transactions per sample.
    package var transactionsPerSample: Double { Double(tickTransfers.count) / Double(samplesPerTick) }
    /// Data bytes per sample (`I2CTransferShape.dataBytes`).
    package var dataBytesPerSample: Double { Double(tickTransfers.reduce(0) { $0 + $1.dataBytes }) / Double(samplesPerTick) }
    /// SCL clocks per sample.
    package var clocksPerSample: Double { Double(tickTransfers.reduce(0) { $0 + $1.clocks }) / Double(samplesPerTick) }

    /// Bus time per sample at `clockHz`, seconds.
    package func secondsPerSample(clockHz: Double) -> Double { clocksPerSample / clockHz }

    /// The share of the bus's time this board takes at `clockHz`: bus time per second / 1 s
    /// (1 is the whole bus).
    package func share(clockHz: Double) -> Double {
        let check = Double(I2CTransferShape.registerRead(1).clocks)
        return (rateHz * clocksPerSample + checksPerSecond * check) / clockHz
    }

    /// The share of one bus that `boards` on it take together at `clockHz`.
    package static func share(of boards: [BusBudget], clockHz: Double) -> Double {
        boards.reduce(0) { $0 + $1.share(clockHz: clockHz) }
    }

    /// Above this share of its bus, sampling leaves too little room for retries, the adapter's
    /// gaps between messages and the kernel's scheduling: warned about.
    package static let warningShare = 0.7
}

extension ChipDescription {
    /// Whole frames the reference part's FIFO holds (the extra ones in the output registers not
    /// counted), nil without a FIFO.
    package var fifoFrames: Int? {
        referenceVariant.fifo.map { $0.capacityBytes / $0.frameBytes }
    }

    /// The transactions of one FIFO drain that finds `samples` waiting (`fifoDrain`).
    package func fifoDrainTransfers(samples: Int) -> [I2CTransferShape] {
        switch fifoDrain {
        case let .countThenBatch(countBytes):
            let frame = referenceVariant.fifo?.frameBytes ?? sampleBytes
            return [.registerRead(countBytes)] + (samples > 0 ? [.registerRead(samples * frame)] : [])
        case let .statusThenBursts(statusAgainWhenFull):
            let burst = I2CTransferShape.registerRead(sampleBytes), status = I2CTransferShape.registerRead(1)
            guard statusAgainWhenFull, let depth = fifoFrames, samples >= depth else {
                return [status] + Array(repeating: burst, count: samples)
            }
            // A full FIFO: its entries, then the status again and what moved in meanwhile.
            return [status] + Array(repeating: burst, count: depth) + [status] + Array(repeating: burst, count: samples - depth)
        }
    }
}
