import Tiltboard
import TiltboardDrivers

extension BusBudget {
    /// What a board's sensor section takes of its bus as the commands that run the loop sample it:
    /// through the FIFO when the board file says so or above `fifoAboveHz`, drained at no more
    /// than `fifoTickHz`, with the loop's once-a-second health check (`BusRecoverySettings`).
    package static func planned(_ sensor: BoardDescription.SensorSection, fifoAboveHz: Double, fifoTickHz: Double) -> BusBudget {
        let rate = sensor.rateHz
        let fifo = sensor.fifo || rate > fifoAboveHz
        return BusBudget(chip: sensor.chip, rateHz: rate, fifo: fifo,
                         samplesPerTick: fifo ? batch(rateHz: rate, tickRateHz: Swift.min(rate, fifoTickHz)) : 1,
                         checksPerSecond: 1 / BusRecoverySettings().healthCheckSeconds)
    }
}
