import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// `tiltboard shake`: watches for shakes, buzzes the motor on each, prints every start and end.
struct ShakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shake",
        abstract: "Watch for shakes, buzz the motor on each, and print them.",
        discussion: """
        Without --board, the built-in simulated MPU-6050 board plays the `shake` script (a 4 Hz, 2 g \
        shake from 1 s to 2 s). The detector's settings come from the board file's "shake" section, \
        with the profile's sensitivity (`tiltboard profile shake`) over it; the flags below override both. Each detected shake plays the board's motor.shakeEffect \
        (default pulse:150) unless --mute is given; on a simulated board each change of the motor \
        line is printed on stderr and appended to simulation.motorLog if set.

        Output, one line per event: `shake at 1.02 s, peak 2.1 g` and `shake ended at 2.31 s after \
        1.29 s, peak 2.6 g`; with --json, {"event":"start","t":1.02,"peakG":2.1} and \
        {"event":"end","t":2.31,"durationS":1.29,"peakG":2.6}. Times are seconds since sampling began.

        --explain answers "why didn't it buzz?" from a recording (a board file whose simulation plays \
        the trace): on stderr, one line per half-cycle that joins a run (its strength, direction, gap \
        and the gravity estimate), per run that ends or is held without a shake (and the rule that \
        did it), per downward burst no faster than free fall, and per shake taken (with its figures). \
        Without it the detector does no extra work.

        With --wake-on-motion (needs the board's "interrupt" section), sampling stops after 2 s of \
        stillness: the chip's own motion detector is armed at --wake-threshold (a change within a \
        quarter second) and the loop sleeps on the interrupt line until motion, then samples at full rate \
        again; each sleep and wake is noted on stderr.

        Exit codes: 0 done, also when stopped by SIGINT/SIGTERM/SIGHUP (motor off), 64 bad flag, 65 bad \
        board or profile file, 69 sensor or motor line unavailable, 74 I/O error, 77 permission denied.
        """
    )

    @OptionGroup var boardOptions: BoardOptions

    @Flag(help: "One JSON object per event.")
    var json = false

    @OptionGroup var duration: DurationOption

    @OptionGroup var rate: RateOption

    @Flag(help: "Do not play the shake effect.")
    var mute = false

    @Option(help: ArgumentHelp("Linear acceleration (gravity removed) each half-cycle of a shake must reach (default 0.8).", valueName: "g"))
    var threshold: Double?

    @Option(help: .hidden)
    var minDuration: Double?

    @Option(help: ArgumentHelp("No new shake until this long after one ended (default 500).", valueName: "ms"))
    var cooldown: Double?

    @Option(help: ArgumentHelp("Direction reversals in a row that make a shake: 2 = there, back, there again (default 2).", valueName: "n"))
    var minReversals: Int?

    @Option(help: ArgumentHelp("Share of the time since the first half-cycle spent swinging, over half the threshold (default 0.6).", valueName: "0…1"))
    var minFraction: Double?

    @Flag(help: "Say on stderr why each burst did or did not make a shake: every half-cycle, what ended or held a run, the gravity estimate.")
    var explain = false

    @OptionGroup(title: "Wake on motion") var wake: WakeOptions

    @OptionGroup(title: "Bus failures") var bus: BusOptions

    @OptionGroup var speed: FastOption

    func validate() throws {
        try wake.validate()
        if let v = threshold, !(v > 0 && v <= 16) { throw ValidationError("--threshold must be more than 0 and at most 16 g, got \(v)") }
        if minDuration != nil {
            throw ValidationError("--min-duration no longer applies: a single burst no longer starts a shake, only a back-and-forth does; use --min-reversals")
        }
        if let v = cooldown, !(v >= 0 && v <= 60_000) { throw ValidationError("--cooldown must be 0…60000 ms, got \(v)") }
        if let v = minReversals, !(v >= 1 && v <= 20) { throw ValidationError("--min-reversals must be 1…20, got \(v)") }
        if let v = minFraction, !(v >= 0 && v <= 1) { throw ValidationError("--min-fraction must be 0…1, got \(v)") }
    }

    /// The board's shake section with the flags laid over it.
    func shakeSection(over section: BoardDescription.ShakeSection) -> BoardDescription.ShakeSection {
        var s = section
        if let threshold { s.thresholdG = threshold }
        if let cooldown { s.cooldownMs = cooldown }
        if let minReversals { s.minReversals = minReversals }
        if let minFraction { s.minFraction = minFraction }
        return s
    }

    func run() throws {
        try SignalWatcher.shared.start()
        var board = try boardOptions.loadBoard(defaultScript: "shake")
        board.shake = shakeSection(over: board.shake)
        let session = try CommandBoard.open(board, options: boardOptions, fast: speed.fast, rateHz: rate.hz)
        defer { session.close() }
        let motor = mute ? nil : try Motor.open(session, announceChanges: board.isSimulated)
        if !mute, motor == nil { Console.note("board \(board.name) has no motor: shakes are only printed") }

        var explainer: (@Sendable (ShakeNote) -> Void)?
        if explain { explainer = { @Sendable note in Console.error(ShakeExplanation.line(note) + "\n") } }
        // The flags win over the profile's sensitivity too.
        let loop = try RunPlan.makeLoop(session, haptics: motor?.engine, bus: bus, wake: wake, shakeNotes: explainer,
                                        shakeOverrides: shakeSection(over: BoardDescription.ShakeSection()))
        let json = json
        let printer = ShakeEventPrinter()
        let running = loop.start(for: RunPlan.span(duration.seconds), observers: [LoopObserver(sample: { out, _ in
            // Only events are formatted: the per-sample path stays allocation-free.
            guard let event = out.shakeEvent else { return }
            printer.print(event, json: json)
        })])
        // Also wakes a loop asleep on the interrupt pin at once.
        SignalWatcher.shared.onStop { _ in running.stop() }
        let realtimeNote = try running.wait()
        if let realtimeNote { Console.note(realtimeNote) }
        if let failure = motor?.engine.lastError { Console.warn("the motor line failed: \(describe(failure))") }
        let stats = loop.scheduler.statistics
        Console.note("\(printer.shakes) shake\(printer.shakes == 1 ? "" : "s") in \(loop.samples) samples; loop lateness p99 \(decimal(Double(stats.latenessP99Nanoseconds) / 1e6, 2)) ms, \(stats.missedTicks) missed ticks; \(loop.busStatistics); \(Motor.tripsSummary(motor))")
        wake.report(loop)
        if let signal = SignalWatcher.shared.signal, OutputFailure.first == nil { Console.note("stopped by signal \(signal); motor off") }
    }
}

extension JSONLineWriter {
    /// `{"event":"start","t":…,"peakG":…}` or `{"event":"end","t":…,"durationS":…,"peakG":…}`
    /// and a newline (docs/schema/shake-event.schema.json).
    mutating func write(shakeEvent event: ShakeEvent) {
        beginObject()
        plainString("event", event.phase == .started ? "start" : "end")
        number("t", event.t, fractionDigits: 3)
        if event.phase == .ended { number("durationS", event.t - event.startT, fractionDigits: 3) }
        number("peakG", event.peakG, fractionDigits: 2)
        endObject()
        newline()
    }
}

/// Prints shake events as text or JSON lines (on the loop thread while it runs).
final class ShakeEventPrinter {
    private var line = JSONLineWriter(capacity: 128)
    /// Shakes started so far.
    private(set) var shakes = 0

    func print(_ event: ShakeEvent, json: Bool) {
        if event.phase == .started { shakes += 1 }
        if json {
            line.reset()
            line.write(shakeEvent: event)
            Console.out(line.bytes)
        } else {
            Console.out(Self.text(event))
        }
    }

    /// `shake at 1.02 s, peak 2.1 g` / `shake ended at 2.31 s after 1.29 s, peak 2.6 g`.
    static func text(_ event: ShakeEvent) -> String {
        let t = decimal(event.t, 2), peak = decimal(event.peakG, 1)
        switch event.phase {
        case .started: return "shake at \(t) s, peak \(peak) g\n"
        case .ended: return "shake ended at \(t) s after \(decimal(event.t - event.startT, 2)) s, peak \(peak) g\n"
        }
    }
}
