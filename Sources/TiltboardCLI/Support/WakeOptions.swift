import ArgumentParser
import Tiltboard
import TiltboardCore
import TiltboardDrivers

/// `--wake-on-motion` and its settings, for the commands that run the tilt loop.
struct WakeOptions: ParsableArguments {
    @Flag(help: "Sleep on the sensor's interrupt line while the board is still; wake on motion (needs the board's \"interrupt\" section).")
    var wakeOnMotion = false

    @Option(help: ArgumentHelp("With --wake-on-motion: stillness before sleeping (default 2).", valueName: "s"))
    var idle: Double?

    @Option(help: ArgumentHelp("With --wake-on-motion: the chip's motion threshold (default 0.1; \(WakeOptions.thresholdSteps)).", valueName: "g"))
    var wakeThreshold: Double?

    /// `32 mg steps on the MPU-6050 (20.2 mg on the MPU-6500, …), 62.5 mg on the ADXL345`, from the registry.
    static var thresholdSteps: String {
        ChipRegistry.all.filter(\.offersWakeOnMotion).enumerated().map { i, chip in
            let steps = chip.variants.map { ($0.part, ($0.motion.thresholdStepG * 10_000).rounded() / 10) }
            let reference = steps[0].1
            let others = steps.filter { $0.1 != reference }
            let aside = others.isEmpty ? "" : " (\(Self.mg(others[0].1)) mg on the " + others.map(\.0).joined(separator: ", ") + ")"
            return "\(Self.mg(reference)) mg\(i == 0 ? " steps" : "") on the \(chip.partName)" + aside
        }.joined(separator: ", ")
    }

    private static func mg(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    func validate() throws {
        if !wakeOnMotion, idle != nil || wakeThreshold != nil {
            throw ValidationError("--idle and --wake-threshold only apply with --wake-on-motion")
        }
        if let v = idle, !(v > 0 && v <= 3600) { throw ValidationError("--idle must be more than 0 and at most 3600 s, got \(v)") }
        if let v = wakeThreshold, !(v > 0 && v <= 8) { throw ValidationError("--wake-threshold must be more than 0 and at most 8 g, got \(v)") }
    }

    var settings: WakeOnMotionSettings {
        var s = WakeOnMotionSettings()
        if let idle { s.idleSeconds = idle }
        if let wakeThreshold { s.thresholdG = wakeThreshold }
        return s
    }

    /// Turns the mode on when asked.
    func configure(_ configuration: inout TiltLoop.Configuration, _ session: BoardSession) throws {
        guard wakeOnMotion else { return }
        configuration.wakeOnMotion = WakeOnMotion(settings: settings, line: try session.wakeLine())
    }

    /// Sleeps and wakes noted on stderr (not per sample).
    var notes: LoopObserver {
        let settings = settings
        return LoopObserver(event: { event in
            switch event {
            case let .wake(.sleeping(t)):
                Console.note("still for \(decimal(settings.idleSeconds, 1)) s: sleeping at \(decimal(t, 2)) s until motion")
            case let .wake(.woke(t, asleep)):
                Console.note("woke on motion at \(decimal(t, 2)) s after \(decimal(Nanoseconds.seconds(asleep), 2)) s asleep")
            case .sensor:
                break
            }
        })
    }

    /// One line of totals: wakeups, time asleep and the loop ticks that did not run.
    func report(_ loop: TiltLoop) {
        guard wakeOnMotion else { return }
        let s = loop.wakeStatistics
        Console.note("wake on motion: \(s.sleeps) sleep\(s.sleeps == 1 ? "" : "s"), \(s.wakeups) wakeup\(s.wakeups == 1 ? "" : "s"), \(decimal(s.idleSeconds, 2)) s asleep, \(s.ticksSkipped(rateHz: loop.scheduler.rateHz)) loop ticks skipped")
    }
}
