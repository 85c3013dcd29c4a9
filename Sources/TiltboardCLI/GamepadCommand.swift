import ArgumentParser
import Foundation
import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

struct GamepadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gamepad",
        abstract: "Appear as a gamepad any game can use: tilt on the left stick, a shake on the A button, the game's rumble on the motor.",
        discussion: """
        Creates a joystick through /dev/uinput (seen by SDL, RetroArch, Godot, Pygame, Steam as a \
        gamepad): ABS_X follows roll (right edge down → positive), ABS_Y follows pitch (front edge \
        down → stick forward → negative), −32767…32767, after the calibration profile, with \
        --dead-zone and --response, full deflection at --full-scale degrees. A shake holds BTN_SOUTH \
        (A) down for as long as it lasts, at least 100 ms. Force-feedback effects the game uploads \
        (FF_RUMBLE, FF_CONSTANT, FF_PERIODIC) play on the motor with their length, delay and repeat \
        count, mixed, scaled by FF_GAIN, and never past the board's motor.maxOnMs. A board \
        without a motor gives a gamepad without force feedback (no EV_FF), so games offer no rumble.

        With --board once per player, the boards run in one loop (see `tiltboard run`) and each \
        gets its own device, named after its player ("Tiltboard 1", "Tiltboard 2", … or --name \
        and the number), created in player order so that a game's player index follows the boards; \
        each device's rumble plays only on its own board's motor.

        Needs the uinput module (`sudo modprobe uinput`) and write access to /dev/uinput \
        (udev/60-tiltboard.rules and the uinput group). The device is removed and the motor turned \
        off on exit, Ctrl-C or SIGTERM.
        """
    )

    @OptionGroup var boards: PlayerBoardOptions

    @OptionGroup var duration: RunDurationOption

    @OptionGroup(title: "Gamepad") var pad: GamepadOptions

    @Option(help: ArgumentHelp("Dead zone around the neutral pose, degrees of tilt.", valueName: "deg"))
    var deadZone = 0.0

    @Option(help: ArgumentHelp("Response exponent: 1 is linear, larger gives finer control near neutral.", valueName: "exp"))
    var response = 1.0

    @OptionGroup(title: "Bus failures") var bus: BusOptions

    func validate() throws {
        if let problem = pad.axes(deadZoneDeg: deadZone, responseExponent: response).problem { throw ValidationError(problem.message) }
    }

    func run() throws {
        if boards.several { return try runTogether() }
        try SignalWatcher.shared.start()
        let session = try RunPlan.openSession(boards.options(), rate: nil, fifo: false, defaultScript: "demo")
        defer { session.close() }
        let motor = try Motor.open(session, announceChanges: true)
        let link = try GamepadLink(options: pad, axes: pad.axes(deadZoneDeg: deadZone, responseExponent: response),
                                   session: session, motor: motor)
        let loop = try RunPlan.makeLoop(session, haptics: nil, bus: bus)
        let until = RunPlan.describeDuration(duration.seconds)
        Console.note("gamepad \"\(pad.name)\" on \(session.board.name) at \(RunPlan.describeRate(session)) \(until)")
        if motor == nil { Console.note("the board has no motor: the gamepad offers no rumble") }
        let running = loop.start(for: RunPlan.span(duration.seconds),
                                 observers: [link.observer(loop: loop)])
        SignalWatcher.shared.onStop { _ in running.stop() }
        let ran = Result { try running.wait() }
        RunPlan.noteTotals(loop, motor: motor)
        _ = try ran.get()
        try link.finish()
    }

    /// Several boards in one loop: one gamepad per board, "NAME 1", "NAME 2", … created in player
    /// order, each one's rumble on its own board's motor.
    private func runTogether() throws {
        try SignalWatcher.shared.start()
        let players = try PlayerBoards.open(boards, rate: nil, fifo: false, fast: false)
        defer { players.close() }
        let sessions = players.sessions
        let links = try GamepadLink.players(options: pad, axes: pad.axes(deadZoneDeg: deadZone, responseExponent: response),
                                            sessions: sessions, engines: players.motors.map { $0?.engine })
        let loops = try sessions.indices.map { i in
            try RunPlan.makeLoop(sessions[i], haptics: nil, bus: bus, label: PlayerBoards.label(i))
        }
        let group = try TiltLoopGroup(loops)
        let until = RunPlan.describeDuration(duration.seconds)
        for (i, session) in sessions.enumerated() {
            let label = PlayerBoards.label(i)
            Console.note("\(label): gamepad \"\(links[i].name)\" on \(session.board.name) at \(RunPlan.describeRate(session)) \(until)")
            if players.motors[i] == nil { Console.note("\(label): the board has no motor: the gamepad offers no rumble") }
        }
        let observers = sessions.indices.map { i in
            let link = links[i], loop = loops[i]
            return [link.observer(loop: loop)]
        }
        let running = group.start(for: RunPlan.span(duration.seconds), observers: observers)
        SignalWatcher.shared.onStop { _ in running.stop() }
        running.wait()
        try players.finish(group, running)
        for link in links { try link.finish() }
    }
}

/// `--name` and `--full-scale`: the gamepad device `gamepad` and `run --gamepad` create.
struct GamepadOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Device name games show.", valueName: "name"))
    var name = "Tiltboard"

    @Option(help: ArgumentHelp("Tilt giving full stick deflection, degrees.", valueName: "deg"))
    var fullScale = 25.0

    func axes(deadZoneDeg: Double, responseExponent: Double) -> GamepadAxes {
        GamepadAxes(deadZoneDeg: deadZoneDeg, responseExponent: responseExponent, fullScaleDeg: fullScale)
    }
}

/// The uinput device joined to a loop: created up front, fed from the loop thread, removed on every way out.
final class GamepadLink {
    /// Tests point this at a file of their own instead of the kernel's node.
    static let pathVariable = "TILTBOARD_UINPUT"
    let bridge: GamepadBridge
    /// The name games show.
    let name: String
    private var failure: Error?
    /// One player's gamepad of several: its lines name it.
    private(set) var oneOfSeveral = false

    convenience init(options: GamepadOptions, axes: GamepadAxes, session: BoardSession, motor: Motor?) throws {
        let device = try Self.uinputDevice(name: options.name, effectSlots: Self.effectSlots(motor: motor != nil))
        self.init(device: device, name: options.name, axes: axes, session: session, engine: motor?.engine)
    }

    /// Joins `device` to `session`'s loop, its rumble played by `engine`.
    init(device: GamepadDevice, name: String, axes: GamepadAxes, session: BoardSession, engine: HapticEngine?) {
        let bridge = GamepadBridge(device: device, axes: axes, engine: engine, clock: session.clock)
        self.bridge = bridge
        self.name = name
        // Gone before the motor it rumbles is shut down.
        session.onClose { bridge.close() }
    }

    /// A uinput gamepad at the node `TILTBOARD_UINPUT` names (the kernel's by default).
    static func uinputDevice(name: String, effectSlots: Int) throws -> GamepadDevice {
        let path = try devicePath(ProcessInfo.processInfo.environment[pathVariable])
        return try UInputGamepad(name: name, path: path, effectSlots: effectSlots)
    }

    /// One gamepad per board of several, named after its player ("NAME 1", "NAME 2", …) and
    /// created in player order, so that a game's player index (SDL numbers joysticks in the order
    /// they appear) follows the boards'; each one's rumble plays only on its own board's motor
    /// (`engines[i]`, nil: a pad without force feedback). `makeDevice` makes a device from its
    /// name and force-feedback slots (uinput unless a test says otherwise).
    static func players(options: GamepadOptions, axes: GamepadAxes, sessions: [BoardSession], engines: [HapticEngine?],
                        makeDevice: (String, Int) throws -> GamepadDevice = { try uinputDevice(name: $0, effectSlots: $1) }) throws -> [GamepadLink] {
        try sessions.indices.map { i in
            let name = playerName(options.name, player: i + 1)
            let device = try makeDevice(name, effectSlots(motor: engines[i] != nil))
            let link = GamepadLink(device: device, name: name, axes: axes, session: sessions[i], engine: engines[i])
            link.oneOfSeveral = true
            return link
        }
    }

    /// `NAME N`: the gamepad of player `player` of several.
    static func playerName(_ name: String, player: Int) -> String { "\(name) \(player)" }

    /// Force-feedback slots the device offers: none without a motor, so games see a pad without
    /// rumble rather than one whose rumble is never felt.
    static func effectSlots(motor: Bool) -> Int { motor ? RumbleScheduler.maxEffects : 0 }

    /// The uinput node: `TILTBOARD_UINPUT` when set to an absolute path, the kernel's when unset
    /// or empty; a relative path is refused, as it would depend on where the command started.
    static func devicePath(_ value: String?) throws -> String {
        guard let value, !value.isEmpty else { return UInputGamepad.defaultPath }
        guard value.hasPrefix("/") else {
            throw CLIError(message: "\(pathVariable) must be an absolute path (or unset for \(UInputGamepad.defaultPath)), got \"\(clipped(escapingControls(value)))\"",
                           category: .invalidRequest)
        }
        guard value.utf8.count < Int(PATH_MAX) else {
            throw CLIError(message: "\(pathVariable) is \(value.utf8.count) bytes long, more than a path can be (\(PATH_MAX - 1)); unset it for \(UInputGamepad.defaultPath)",
                           category: .invalidRequest)
        }
        return value
    }

    /// One sample to the device; a device failure stops the loop and is thrown by `finish`.
    func update(_ out: PipelineOutput, loop: TiltLoop) {
        guard failure == nil else { return }
        do { try bridge.update(out) } catch {
            failure = error
            loop.stop()
        }
    }

    /// Hears `loop`: each sample to the device, and the stick centred while the sensor is lost.
    func observer(loop: TiltLoop) -> LoopObserver {
        LoopObserver(sample: { out, _ in self.update(out, loop: loop) }, event: { event in
            guard case .sensor(.lost) = event, self.failure == nil else { return }
            do { try self.bridge.centre() } catch {
                self.failure = error
                loop.stop()
            }
        })
    }

    /// Throws the device failure, if any, else notes how often the game played a rumble.
    func finish() throws {
        if let failure { throw failure }
        Console.note("gamepad\(oneOfSeveral ? " \"\(name)\"" : ""): \(bridge.rumblePlays) rumble plays")
    }

    func close() { bridge.close() }
}

extension GamepadAxes.Problem {
    /// The line naming the option to change.
    var message: String {
        switch self {
        case let .fullScale(v): return "--full-scale must be above 0 and at most 90 degrees, got \(v)"
        case let .deadZone(v, fullScale): return "--dead-zone must be at least 0 and below --full-scale (\(fullScale)°), got \(v)"
        case let .response(v): return "--response must be above 0 and at most 10, got \(v)"
        }
    }
}
