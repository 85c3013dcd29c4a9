import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// The main job — board, profile, tilt loop, shake, haptics, output, fault handling — with the
/// options that shape it. `run` is this job alone; `serve` runs the same job and hooks a web
/// server onto it.
struct RunJob: ParsableArguments {
    @OptionGroup var rate: RateOption

    @Flag(help: "Drain the chip's FIFO each tick (automatic above 400 Hz).")
    var fifo = false

    @OptionGroup var duration: RunDurationOption

    @Flag(help: "One JSON object per line on stdout.")
    var json = false

    @Option(help: ArgumentHelp("Lines (and datagrams) per second (default: every sample with --json, 10 otherwise).", valueName: "hz"))
    var outputRate: Double?

    @Option(help: ArgumentHelp("Also send each JSON object as a UDP datagram to HOST:PORT.", valueName: "host:port"))
    var udp: String?

    @Flag(help: "Run the loop thread alone under SCHED_FIFO with memory locked (needs root, CAP_SYS_NICE or an rtprio limit, as the packaged services have; a note says if refused).")
    var realtime = false

    @OptionGroup(title: "Controller") var controller: RunControllerOptions

    @OptionGroup(title: "Wake on motion") var wake: WakeOptions

    @OptionGroup(title: "Bus failures") var bus: BusOptions

    @Flag(help: "Also appear as a gamepad, as `tiltboard gamepad` does (--dead-zone and --response apply to its stick).")
    var gamepad = false

    @OptionGroup(title: "Gamepad (with --gamepad)") var pad: GamepadOptions

    func validate() throws {
        try validateRate(outputRate, name: "--output-rate")
        try wake.validate()
        if gamepad, let problem = pad.axes(deadZoneDeg: controller.deadZone, responseExponent: controller.response).problem {
            throw ValidationError(problem.message)
        }
    }

    /// What a command running the job adds to it.
    struct Hooks {
        /// Once the board, the motor and the loop are ready, just before the loop starts: what
        /// else observes the loop, after the job's own output.
        var prepared: (BoardSession, Motor?, TiltLoop) throws -> [LoopObserver] = { _, _, _ in [] }
        /// The same with several boards (`runTogether`): every board, motor and loop in player
        /// order; what else observes each board's loop, one list per board.
        var preparedPlayers: ([BoardSession], [Motor?], [TiltLoop]) throws -> [[LoopObserver]] = { _, _, _ in [] }
        /// The human status line on stdout when there is no --json (off when the command prints something else there).
        var statusLine = true
    }

    /// Runs the job; with `fast`, on the virtual clock (a simulated board only).
    func run(_ boardOptions: BoardOptions, hooks: Hooks = Hooks(), fast: Bool = false) throws {
        try SignalWatcher.shared.start()
        let session = try RunPlan.openSession(boardOptions, rate: rate.hz, fifo: fifo, defaultScript: "demo", fast: fast)
        // Closing the session shuts down the gamepad, then the motor, then the sensor.
        defer { session.close() }
        let sender = try udp.map { try UDPSender(destination: $0) }
        let motor = try Motor.open(session, announceChanges: true)
        let link = try gamepad ? GamepadLink(options: pad, axes: pad.axes(deadZoneDeg: controller.deadZone, responseExponent: controller.response),
                                             session: session, motor: motor) : nil
        let loop = try RunPlan.makeLoop(session, haptics: motor?.engine, controller: controller.settings, realtime: realtime,
                                        bus: bus, wake: wake)
        announce(session, boardOptions, motor: motor != nil, sender: sender)
        let observers = try hooks.prepared(session, motor, loop)

        // In real time a slow reader costs lines, never a tick; on a virtual clock no deadline is
        // real, so the loop waits for the reader and every line is written.
        let state = RunOutputState(json: json, statusLine: hooks.statusLine, interval: outputRate.map { 1 / $0 } ?? (json ? 0 : 0.1),
                                   sender: sender, engine: motor?.engine,
                                   whenFull: CommandClock.isReal(session.clock) ? .dropOldest : .wait,
                                   settle: CommandClock.settle(session.clock))
        let output = LoopObserver(sample: { out, _ in state.emit(out) })
        let running = loop.start(for: RunPlan.span(duration.seconds),
                                 observers: (link.map { [$0.observer(loop: loop)] } ?? []) + [output] + observers)
        let writers = state.writers
        SignalWatcher.shared.onStop { _ in
            running.stop()
            for writer in writers { writer.stopWaiting() }
        }
        let ran = Result { try running.wait() }
        motor?.shutdown()
        state.finish()
        if case let .success(note) = ran {
            if let note { Console.note(note) } else if realtime { Console.note("the loop ran with SCHED_FIFO priority and locked memory") }
        }
        // The totals also when the sensor was given up on, before the error line.
        RunPlan.noteTotals(loop, motor: motor)
        _ = try ran.get()
        wake.report(loop)
        state.report()
        try link?.finish()
    }

    private func announce(_ session: BoardSession, _ boardOptions: BoardOptions, motor: Bool, sender: UDPSender?) {
        let until = RunPlan.describeDuration(duration.seconds)
        let part = session.board.name.contains(session.sensor.identity.part) ? "" : " (\(session.sensor.identity.part))"
        Console.note("running \(session.board.name)\(part) at \(RunPlan.describeRate(session)) \(until), shake sensitivity \(ProfileShake.describe(session.shakeSettings))")
        if boardOptions.board == nil {
            Console.note("the demo: tilt left, right, forward and back (30° each), level, then a shake that starts the motor; about 12.5 s")
        }
        if session.profile == nil {
            Console.note(boardOptions.ignoreProfile ? "calibration profile ignored" : "no calibration profile at \(session.profilePath): raw sensor values (see `tiltboard calibrate`)")
        }
        if !motor { Console.note("the board has no motor: shakes are shown but not felt") }
        if let sender { Console.note("sending JSON datagrams to \(sender.destination)") }
        if gamepad { Console.note("gamepad \"\(pad.name)\" created") }
    }
}

/// What the output closure needs on the loop thread; built once before the loop starts. Lines
/// and datagrams go through queues to writer threads, so a slow reader never delays a tick in
/// real time (`whenFull: .dropOldest`); with `.wait` (a virtual clock) the loop waits for the
/// reader instead and nothing is dropped.
final class RunOutputState {
    /// Longest wait at the end for a slow reader to take what is still queued.
    static let drainTimeout: Duration = .seconds(2)

    let json: Bool
    let statusLine: Bool
    let interval: Double
    let engine: HapticEngine?
    /// On a virtual clock: lets the motor's thread finish what is due at this instant before its
    /// state is read, so `haptic` is the same on every run.
    let settle: (() -> Void)?
    let stdout: DropOldestWriter
    let udp: (sender: UDPSender, queue: DropOldestWriter)?
    var line = JSONLineWriter(capacity: 512)
    var status = RunStatusLine()
    var nextT = -Double.infinity
    /// With several boards, the player whose samples these are (1 for the first); nil with one.
    let player: Int?

    /// `write`: where the lines go (standard output). `whenFull`: what a full queue does.
    /// `player`: which board of several (nil: the only one); `sharing`: another player's state
    /// whose queues these lines join (written from the same loop thread).
    init(json: Bool, statusLine: Bool, interval: Double, sender: UDPSender?, engine: HapticEngine?,
         whenFull: DropOldestWriter.FullPolicy = .dropOldest, settle: (() -> Void)? = nil,
         player: Int? = nil, sharing other: RunOutputState? = nil,
         write: @escaping (UnsafeRawBufferPointer) -> Void = { Console.out($0) }) {
        self.json = json; self.statusLine = statusLine; self.interval = interval; self.engine = engine
        self.settle = settle
        self.player = player
        if let other {
            stdout = other.stdout
            udp = other.udp
            return
        }
        stdout = DropOldestWriter(name: "tiltboard-stdout", whenFull: whenFull, sink: write)
        udp = sender.map { sender in
            (sender, DropOldestWriter(name: "tiltboard-udp", whenFull: whenFull) { bytes in
                guard sender.send(bytes), let reason = sender.firstFailureReason else { return }
                Console.note("udp: \(sender.destination) refused a datagram (\(reason)): nobody listening? Still sending")
            })
        }
    }

    /// The queues: standard output's, and the datagrams' with --udp.
    var writers: [DropOldestWriter] { [stdout] + (udp.map { [$0.queue] } ?? []) }

    /// Lines and datagrams dropped so far, as the JSON objects report them.
    var dropped: UInt64 { stdout.dropped + (udp?.queue.dropped ?? 0) }

    func emit(_ out: PipelineOutput) {
        // Decimated by sample time, so the output rate does not depend on the sample rate. Without
        // an output rate every sample is a line.
        if interval > 0 {
            guard out.t >= nextT else { return }
            nextT = nextT.isFinite && out.t - nextT < interval ? nextT + interval : out.t + interval
        }
        if engine != nil { settle?() }
        let haptic = engine?.isActive ?? false
        if json || udp != nil { line.writeRunLine(out, haptic: haptic, dropped: dropped, player: player) }
        if let udp { line.bytes.withUnsafeBytes { udp.queue.push(UnsafeRawBufferPointer(rebasing: $0.dropLast())) } }
        if json {
            line.bytes.withUnsafeBytes { stdout.push($0) }
        } else if statusLine {
            status.make(out, haptic: haptic, player: player)
            status.bytes.withUnsafeBytes { stdout.push($0) }
        }
    }

    /// Gives the writers a moment to pass on what is queued (after a stop request, no longer than
    /// what is left of `SignalWatcher.outputGrace`).
    func finish() {
        stdout.finish(timeout: SignalWatcher.shared.boundedByStop(Self.drainTimeout))
        udp?.queue.finish(timeout: SignalWatcher.shared.boundedByStop(Self.drainTimeout))
    }

    /// The output totals on stderr.
    func report() {
        if json {
            let dropped = stdout.dropped
            Console.note("output: \(stdout.written) lines written, \(dropped) dropped\(dropped > 0 ? " (the reader fell behind)" : "")")
        }
        if let (sender, queue) = udp {
            Console.note("udp: \(queue.written) datagrams to \(sender.destination), \(queue.dropped) dropped, \(sender.failedSends) refused")
        }
    }
}
