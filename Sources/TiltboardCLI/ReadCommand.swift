import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

struct ReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print samples from the sensor.",
        discussion: """
        Acceleration in g (after the mount matrix and the calibration profile), rotation rate in °/s \
        and die temperature in °C (\(ChipRegistry.partNames("and") { $0.variants.allSatisfy { $0.temperature != nil } })). Each sample is one burst read of the chip's data \
        registers, taken at a fixed rate. The sensor is put to sleep when done.

        With --json, one object per line: {"t": s, "accel": [x, y, z], "gyro": [x, y, z], "tempC": c}.
        """
    )

    @OptionGroup var boardOptions: BoardOptions

    @Option(help: "Number of samples; 0 reads until interrupted.")
    var count = 10

    @OptionGroup var rate: RateOption

    @Flag(help: "One JSON object per line.")
    var json = false

    @OptionGroup var speed: FastOption

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more, got \(count)") }
    }

    func run() throws {
        try SignalWatcher.shared.start()
        let session = try CommandBoard.open(boardOptions.loadBoard(), options: boardOptions, fast: speed.fast, rateHz: rate.hz)
        defer { session.close() }
        let clock = session.clock
        let chain = session.makeTiltTracker()
        let scheduler = FixedRateScheduler(rateHz: rate.hz ?? session.board.sensor.rateHz, clock: clock)
        let start = clock.nowNanoseconds()
        var taken = 0
        var line = JSONLineWriter()
        try scheduler.run(shouldStop: { SignalWatcher.shared.stopRequested || (count > 0 && taken >= count) }) { tick in
            let raw = try session.sensor.read(at: Nanoseconds.seconds(from: start, to: tick.wakeTime))
            let s = chain.boardSample(raw)
            taken += 1
            if json {
                line.reset()
                line.write(sample: s)
                Console.out(line.bytes)
            } else {
                Console.out(humanLine(s))
            }
        }
    }

    private func humanLine(_ s: Sample) -> String {
        var text = "t \(fixed(s.t, 3)) s  accel \(fixed(s.accel.x, 4)) \(fixed(s.accel.y, 4)) \(fixed(s.accel.z, 4)) g"
        if let g = s.gyro { text += "  gyro \(fixed(g.x, 2)) \(fixed(g.y, 2)) \(fixed(g.z, 2)) °/s" }
        if let c = s.tempC { text += "  \(fixed(c, 1)) °C" }
        return text + "\n"
    }
}

extension JSONLineWriter {
    /// `{"t":…,"accel":[…],"gyro":[…],"tempC":…}` and a newline.
    mutating func write(sample s: Sample) {
        beginObject()
        number("t", s.t, fractionDigits: 4)
        vector("accel", s.accel.x, s.accel.y, s.accel.z)
        if let g = s.gyro { vector("gyro", g.x, g.y, g.z, fractionDigits: 3) }
        if let c = s.tempC { number("tempC", c, fractionDigits: 2) }
        endObject()
        newline()
    }
}
