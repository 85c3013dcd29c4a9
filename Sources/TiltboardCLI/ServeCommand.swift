import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardLinux
import TiltboardServer

/// `tiltboard serve`: the main job, as `run` does it, plus the calibration page and its API.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the tilt controller and serve a live calibration page (and a JSON API) to a browser.",
        discussion: """
        Runs the main job exactly as `tiltboard run` does (profile, tilt control, shake, haptics, bus \
        failures; all of run's options apply) and serves a page where the board's marker moves as it \
        tilts, with Calibrate, Zero and Test motor, plus the API under /api/ (see the README).

        At start the URL(s) to open are printed on stdout, one per line. Bound to loopback (the \
        default, 127.0.0.1:8080) only this machine can open it, and no token is needed; a phone \
        reaches it only with --host 0.0.0.0 (or the machine's address), and then every request needs \
        the token printed in the URL (kept in serve-token, mode 0600, beside the profile). The Host \
        and Origin headers are checked on every bind.

        With --board once per player, the boards run in one loop (see `tiltboard run`) and the \
        page shows every player's marker; each phone picks its player. GET /api/boards lists the \
        boards, and every board route is also under /api/boards/<player or name>/ (the routes \
        without a board mean player 1).

        Ctrl-C or SIGTERM: the clients are told, the motor goes off, exit 0.
        """
    )

    @OptionGroup var boards: PlayerBoardOptions

    @OptionGroup var job: RunJob

    @Option(help: ArgumentHelp("Address to listen on: 127.0.0.1 (this machine only), 0.0.0.0 (every network), or one address.", valueName: "addr"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("TCP port (0: any free port).", valueName: "n"))
    var port = 8080

    @Option(help: ArgumentHelp("State frames per second to each page, at most.", valueName: "hz"))
    var uiRate = 60.0

    @Option(help: ArgumentHelp("Connections served at once; more are refused (503).", valueName: "n"))
    var maxClients = 32

    @Flag(help: "Beyond loopback, serve without a token (anyone on the network can calibrate and buzz the board).")
    var noAuth = false

    @Flag(help: "Replace the stored token with a new one.")
    var newToken = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, got \(port)") }
        guard uiRate >= 1 && uiRate <= 60 else { throw ValidationError("--ui-rate must be 1…60 frames per second, got \(uiRate)") }
        guard maxClients >= 1 && maxClients <= 1000 else { throw ValidationError("--max-clients must be 1…1000, got \(maxClients)") }
        guard host == "localhost" || host.contains(":") || host.split(separator: ".").count == 4 else {
            throw ValidationError("--host must be an IP address (127.0.0.1, 0.0.0.0, ::, or one of this machine's) or localhost, got \"\(host)\"")
        }
    }

    func run() throws {
        var hooks = RunJob.Hooks()
        hooks.statusLine = false
        if boards.several {
            hooks.preparedPlayers = { sessions, motors, loops in
                let (port, token, observers) = try serve(sessions, motors: motors, loops: loops)
                for url in urls(port: port, token: token) { Console.out(url + "\n") }
                return observers
            }
            return try job.runTogether(boards, hooks: hooks)
        }
        hooks.prepared = { session, motor, loop in
            let (port, token, observers) = try serve(session, motor: motor, loop: loop)
            for url in urls(port: port, token: token) { Console.out(url + "\n") }
            return observers
        }
        try job.run(boards.options(), hooks: hooks)
    }

    /// `serve(_:motors:loops:)` with one board.
    func serve(_ session: BoardSession, motor: Motor?, loop: TiltLoop) throws
        -> (port: UInt16, token: String?, observers: [LoopObserver]) {
        let (port, token, observers) = try serve([session], motors: [motor], loops: [loop])
        return (port, token, observers[0])
    }

    /// Starts the web server on opened boards (in player order) whose loops are about to start:
    /// the port bound, the token clients need (nil when none), and what observes each board's
    /// loop for the pages. The server's stop is registered with the teardown of the board closed
    /// first: opened last, it stops first, before the gamepads, the motors and the sensors.
    func serve(_ sessions: [BoardSession], motors: [Motor?], loops: [TiltLoop]) throws
        -> (port: UInt16, token: String?, observers: [[LoopObserver]]) {
        let feeds = sessions.indices.map { i in BoardFeed(session: sessions[i], loop: loops[i], haptics: motors[i]?.engine) }
        let (server, token) = try makeServer(sessions: sessions, feeds: feeds, motors: motors)
        let served = ServedBoard()
        let port = try served.start(server, uiRate: uiRate, describe: bindFailure)
        sessions[sessions.count - 1].onClose { served.stop() }
        let observers = sessions.indices.map { i in
            let feed = feeds[i], loop = loops[i]
            return [LoopObserver(sample: { out, tick in feed.tick(out, tick, loop: loop) },
                                 event: { if case let .sensor(event) = $0 { feed.sensorEvent(event) } })]
        }
        return (port, token, observers)
    }

    private func makeServer(sessions: [BoardSession], feeds: [BoardFeed], motors: [Motor?]) throws -> (WebServer, String?) {
        let session = sessions[0]
        let loopback = WebServer.isLoopback(host)
        var token: String?
        if newToken || (!loopback && !noAuth) {
            let path = ServeToken.path(forProfile: session.profilePath)
            do {
                let (value, created) = try ServeToken.loadOrCreate(path: path, renew: newToken)
                if created { Console.note("new token stored in \(path) (mode 0600)") }
                if !loopback && !noAuth { token = value }
            } catch let error as ServeTokenFileError {
                throw error
            } catch {
                throw CLIError(message: "cannot keep the token in \(path): \(describe(error)); choose a writable --profile folder", category: .cannotCreate)
            }
        }
        if noAuth && !loopback {
            Console.warn("--no-auth: anyone who can reach \(host) on port \(port) can calibrate the board\(sessions.count > 1 ? "s" : "") and run \(sessions.count > 1 ? "their motors" : "its motor")")
        }
        let hubs = sessions.indices.map { i in ServeHub(session: sessions[i], feed: feeds[i], haptics: motors[i]?.engine) }
        let api = ServeAPI(hubs: hubs, policy: AccessPolicy(ownNames: MachineNames.current(), token: token), page: WebPage.html)
        var limits = WebServer.Limits()
        limits.maxClients = maxClients
        limits.moreClients = "start serve with a higher --max-clients"
        return (WebServer(host: host, port: UInt16(port), limits: limits, api: api), token)
    }

    /// The one-line error for an address that cannot be listened on.
    private func bindFailure(_ error: ServeBindError) -> CLIError {
        let at = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        switch error.errno {
        case EADDRINUSE:
            return CLIError(message: "cannot listen on \(at): the port is in use (another serve?); choose another --port, or --port 0 for any free one", category: .unavailable)
        case EACCES, EPERM:
            return CLIError(message: "cannot listen on \(at): permission denied (ports below 1024 need CAP_NET_BIND_SERVICE); choose a --port of 1024 or more", category: .permissionDenied)
        case EADDRNOTAVAIL:
            return CLIError(message: "cannot listen on \(at): \(host) is not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its own addresses", category: .unavailable)
        case 0:
            return CLIError(message: "cannot listen on \(at): \(host) is not an IP address; use 127.0.0.1, 0.0.0.0, :: or one of this machine's addresses", category: .invalidRequest)
        default:
            return CLIError(message: "\(describe(error))", category: .unavailable)
        }
    }

    /// The URLs to open, one per line.
    func urls(port: UInt16, token: String?) -> [String] {
        ServeURLs.make(host: host, port: port, token: token, names: MachineNames.current(), interfaces: InterfaceAddress.current())
    }
}

/// The server's parts as `serve` starts them from the job's hook; stopped by the session's
/// teardown (`BoardSession.onClose`).
private final class ServedBoard: @unchecked Sendable {
    private var server: WebServer?
    private var pacing: Task<Void, Never>?

    /// Binds and starts serving; the port bound.
    func start(_ server: WebServer, uiRate: Double, describe: (ServeBindError) -> CLIError) throws -> UInt16 {
        let port: UInt16
        do {
            port = try runBlocking { try await server.start() }
        } catch let error as ServeBindError {
            throw describe(error)
        }
        self.server = server
        let hubs = server.api.hubs
        pacing = hubs.count == 1 ? server.background { await hubs[0].run(rateHz: uiRate, clock: SystemServerClock()) } : server.background {
            await withTaskGroup(of: Void.self) { group in
                for hub in hubs { group.addTask { await hub.run(rateHz: uiRate, clock: SystemServerClock()) } }
            }
        }
        return port
    }

    /// Clients told and connections closed (a second at most; after a stop signal, what is left
    /// of `SignalWatcher.outputGrace`, so a client that stopped reading cannot hold the process).
    func stop() {
        guard let server else { return }
        self.server = nil
        pacing?.cancel()
        let grace = SignalWatcher.shared.boundedByStop(.seconds(1))
        runBlocking { await server.stop(grace: grace) }
    }
}
