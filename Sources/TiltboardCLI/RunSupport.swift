import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// How the commands that run the loop open the board and pace it.
enum RunPlan {
    /// Above this output rate one burst read per tick leaves too little margin (a 14-byte read
    /// takes ~0.5 ms at 400 kHz, plus the kernel's wake-up jitter), so samples go through the FIFO.
    static let fifoAboveHz = 400.0
    /// With the FIFO on, the loop wakes this often at most and drains what gathered.
    static let fifoTickHz = 200.0

    /// Opens the board (`defaultScript` on the built-in simulated board) at `rate` (default: the
    /// board's), with the FIFO on when asked, when the board file says so, or above `fifoAboveHz`;
    /// on the virtual clock with `fast` (through `CommandBoard.open`, as every command does).
    static func openSession(_ options: BoardOptions, rate: Double?, fifo: Bool,
                            defaultScript: String, fast: Bool = false) throws -> BoardSession {
        let board = try options.loadBoard(defaultScript: defaultScript)
        let rateHz = rate ?? board.sensor.rateHz
        let useFIFO = fifo || board.sensor.fifo || rateHz > fifoAboveHz
        return try CommandBoard.open(board, options: options, fast: fast, rateHz: rateHz, fifo: useFIFO)
    }

    /// A `--duration` in seconds as the span a loop runs for (nil: until stopped).
    static func span(_ seconds: Double?) -> Duration? {
        seconds.map { Nanoseconds.duration(seconds: $0) }
    }

    /// Loop ticks per second: the sensor's rate, or at most `fifoTickHz` when draining the FIFO.
    static func tickRate(_ session: BoardSession) -> Double {
        let rate = session.sensor.actualRateHz
        return session.sensor.configuration.useFIFO ? min(rate, fifoTickHz) : rate
    }

    /// The loop over `session`'s sensor at `tickRate`, the shake effect played on `haptics`.
    /// The loop the commands run: the board's tick rate, job control not counted as an outage, a
    /// profile another program changes meanwhile (calibrate, serve's page, monitor) applied at
    /// once, the loop thread as `realtime` asks, and, when given, the command's bus-failure limit
    /// and wake-on-motion mode with their notes on stderr.
    static func makeLoop(_ session: BoardSession, haptics: HapticEngine?,
                         controller: TiltControllerSettings = TiltControllerSettings(), realtime: Bool = false,
                         bus: BusOptions? = nil, wake: WakeOptions? = nil,
                         shakeNotes: (@Sendable (ShakeNote) -> Void)? = nil,
                         shakeOverrides: BoardDescription.ShakeSection = .init(), label: String? = nil) throws -> TiltLoop {
        var configuration = TiltLoop.Configuration(rateHz: tickRate(session))
        configuration.shakeNotes = shakeNotes
        configuration.stoppedNanoseconds = { SignalWatcher.shared.stoppedNanoseconds }
        configuration.threadPolicy = loopThreadPolicy(realtime: realtime)
        if session.usesProfile { configuration.watch = session.profileWatch(shakeOverrides: shakeOverrides) }
        bus?.configure(&configuration)
        try wake?.configure(&configuration, session)
        let loop = session.makeLoop(configuration, haptics: haptics, controller: controller, shakeOverrides: shakeOverrides)
        if let bus { loop.observe(bus.notes(label: label)) }
        if let wake { loop.observe(wake.notes) }
        return loop
    }

    /// The loop thread's scheduling: wakeups without timer slack always, and with `realtime`
    /// SCHED_FIFO and locked memory when permitted (the note says why not).
    static func loopThreadPolicy(realtime: Bool) -> LoopThreadPolicy {
        LoopThreadPolicy {
            Realtime.tightenTimerSlack()
            return realtime ? Realtime.enable().map { describe($0) } : nil
        }
    }

    /// `100 Hz` or `1000 Hz (FIFO drained at 200 Hz)`.
    static func describeRate(_ session: BoardSession) -> String {
        let rate = session.sensor.actualRateHz
        let tick = tickRate(session)
        return session.sensor.configuration.useFIFO
            ? "\(formatHz(rate)) Hz (FIFO drained at \(formatHz(tick)) Hz)"
            : "\(formatHz(rate)) Hz"
    }

    /// `for 14.0 s`, or `until Ctrl-C` without a duration.
    static func describeDuration(_ duration: Double?) -> String {
        duration.map { "for \(decimal($0, 1)) s" } ?? "until Ctrl-C"
    }

    /// The end-of-run totals on stderr (tools read its `ticks N, missed N`).
    static func noteTotals(_ loop: TiltLoop, motor: Motor?, label: String? = nil) {
        Console.note((label.map { "\($0): " } ?? "") + "loop: \(loop.scheduleStatistics.description); \(loop.samples) samples; \(loop.busStatistics); \(Motor.tripsSummary(motor))")
    }

    static func formatHz(_ hz: Double) -> String {
        hz == hz.rounded() ? String(Int(hz)) : decimal(hz, 1)
    }
}
