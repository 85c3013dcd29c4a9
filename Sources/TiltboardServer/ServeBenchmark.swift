import Foundation
import FlyingSocks
import Synchronization
import Tiltboard
import TiltboardCore

/// One timed loop run for the serve benchmark.
package struct ServeBenchmarkRun: Sendable, Codable, Equatable {
    /// WebSocket clients connected (one of them never reads); 0 for the run without a server.
    package var clients: Int
    package var ticks: UInt64
    package var missedTicks: UInt64
    package var latenessP50Microseconds: Double
    package var latenessP99Microseconds: Double
    /// Bytes the reading clients received.
    package var bytesReceived: Int
    /// State frames the clients' mailboxes replaced before they were sent, all clients.
    package var framesDropped: UInt64
    /// Resident set after the run, bytes.
    package var residentBytesAfter: UInt64?
    /// Why SCHED_FIFO was not used, when asked for and refused.
    package var realtimeNote: String?
}

/// Loop lateness with web clients and without, run in interleaved pairs so drift on a shared
/// machine hits both alike.
package struct ServeBenchmarkReport: Sendable, Codable, Equatable {
    package var rateHz: Double
    package var secondsPerRun: Double
    package var uiRateHz: Double
    /// (without, with) per pair, in the order run.
    package var without: [ServeBenchmarkRun]
    package var with: [ServeBenchmarkRun]
    package var medianP50Without: Double
    package var medianP50With: Double
    package var medianP99Without: Double
    package var medianP99With: Double
    /// with / without.
    package var p50Ratio: Double { medianP50With / medianP50Without }
    package var p99Ratio: Double { medianP99With / medianP99Without }
}

/// The served-page benchmark: the tilt loop on its own, then the same loop publishing to a served
/// page with `clients` WebSocket clients on loopback (one connected but never reading), `pairs`
/// times over, and the median lateness of each kind.
package enum ServeBenchmark {
    package static func run(open: () throws -> BoardSession, rateHz: Double, seconds: Double, pairs: Int = 5,
                           clients: Int = 20, uiRateHz: Double = 60, threadPolicy: LoopThreadPolicy = .inherited,
                           residentBytes: @escaping () -> UInt64?,
                           progress: (String) -> Void,
                           shouldStop: () -> Bool, started: (RunningLoop) -> Void = { _ in }) throws -> ServeBenchmarkReport {
        var without: [ServeBenchmarkRun] = []
        var with: [ServeBenchmarkRun] = []
        for pair in 1...pairs {
            if shouldStop() { break }
            progress("pair \(pair)/\(pairs): the loop alone for \(seconds) s…")
            without.append(try runOnce(open: open, rateHz: rateHz, seconds: seconds, clients: 0, uiRateHz: uiRateHz, threadPolicy: threadPolicy,
                                       residentBytes: residentBytes, started: started))
            if shouldStop() { break }
            progress("pair \(pair)/\(pairs): with \(clients) clients for \(seconds) s…")
            with.append(try runOnce(open: open, rateHz: rateHz, seconds: seconds, clients: clients, uiRateHz: uiRateHz, threadPolicy: threadPolicy,
                                    residentBytes: residentBytes, started: started))
        }
        return ServeBenchmarkReport(rateHz: rateHz, secondsPerRun: seconds, uiRateHz: uiRateHz, without: without, with: with,
                                    medianP50Without: median(without.map(\.latenessP50Microseconds)),
                                    medianP50With: median(with.map(\.latenessP50Microseconds)),
                                    medianP99Without: median(without.map(\.latenessP99Microseconds)),
                                    medianP99With: median(with.map(\.latenessP99Microseconds)))
    }

    static func median(_ xs: [Double]) -> Double {
        guard !xs.isEmpty else { return 0 }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    private static func runOnce(open: () throws -> BoardSession, rateHz: Double, seconds: Double, clients: Int,
                                uiRateHz: Double, threadPolicy: LoopThreadPolicy, residentBytes: () -> UInt64?,
                                started: (RunningLoop) -> Void) throws -> ServeBenchmarkRun {
        let session = try open()
        defer { session.close() }
        var loopConfiguration = TiltLoop.Configuration(rateHz: rateHz)
        loopConfiguration.threadPolicy = threadPolicy
        let loop = session.makeLoop(loopConfiguration, haptics: nil)
        let feed = BoardFeed(session: session, loop: loop, haptics: nil)
        var served: (server: WebServer, pacing: Task<Void, Never>, clients: BenchClients)?
        if clients > 0 {
            let hub = ServeHub(session: session, feed: feed, haptics: nil)
            var limits = WebServer.Limits()
            limits.maxClients = clients + 4
            let server = WebServer(host: "127.0.0.1", port: 0, limits: limits,
                                   api: ServeAPI(hub: hub, policy: AccessPolicy(ownNames: [], token: nil), page: WebPage.html))
            let port = try runBlocking { try await server.start() }
            let pacing = server.background { await hub.run(rateHz: uiRateHz, clock: SystemServerClock()) }
            let group = try runBlocking { try await BenchClients.connect(port: port, readers: clients - 1, stalled: 1) }
            served = (server, pacing, group)
        }
        let running = loop.start(for: Nanoseconds.duration(seconds: seconds),
                                 observers: [LoopObserver(sample: { out, tick in feed.tick(out, tick, loop: loop) })])
        started(running)
        let note = try running.wait()
        let stats = loop.scheduler.statistics
        var received = 0
        var dropped: UInt64 = 0
        if let served {
            received = served.clients.bytesReceived
            dropped = served.server.api.hub.droppedFrames
            served.pacing.cancel()
            runBlocking {
                await served.clients.close()
                await served.server.stop(grace: .zero)
            }
        }
        return ServeBenchmarkRun(clients: clients, ticks: stats.ticks, missedTicks: stats.missedTicks,
                                 latenessP50Microseconds: Double(stats.latenessP50Nanoseconds) / 1000,
                                 latenessP99Microseconds: Double(stats.latenessP99Nanoseconds) / 1000,
                                 bytesReceived: received, framesDropped: dropped, residentBytesAfter: residentBytes(),
                                 realtimeNote: note)
    }
}

/// WebSocket clients on loopback for the benchmark: readers take everything as it comes; stalled
/// ones complete the handshake and never read again. They stand for phones, which run elsewhere:
/// here they run on a thread of their own at the server's lower priority.
final class BenchClients: @unchecked Sendable {
    private static let executor = ServerExecutor(name: "tiltboard-bench-clients")
    let received = Atomic<Int>(0)
    // Set once in `connect`, before anything else reads them.
    private var sockets: [AsyncSocket] = []
    private var tasks: [Task<Void, Never>] = []

    var bytesReceived: Int { received.load(ordering: .relaxed) }

    static func connect(port: UInt16, readers: Int, stalled: Int) async throws -> BenchClients {
        let clients = BenchClients()
        let pool = SocketPool.make()
        try await pool.prepare()
        clients.tasks.append(Task(executorPreference: executor) { _ = try? await pool.run() })
        let request = "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        for i in 0..<(readers + stalled) {
            let socket = try await AsyncSocket.connected(to: try sockaddr_in.inet(ip4: "127.0.0.1", port: port), pool: pool)
            try await socket.write(Data(request.utf8))
            clients.sockets.append(socket)
            guard i < readers else { continue }
            clients.tasks.append(Task(executorPreference: executor) {
                while !Task.isCancelled {
                    guard let bytes = try? await socket.read(atMost: 65536) else { return }
                    clients.received.add(bytes.count, ordering: .relaxed)
                }
            })
        }
        return clients
    }

    func close() async {
        for socket in sockets { try? socket.close() }
        for task in tasks { task.cancel() }
    }
}

/// Runs `work` on the concurrency pool and waits for it on this thread (which must not be one of
/// the pool's): how the synchronous commands start and stop the server.
package func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, Error>?
    Task {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result!.get()
}

package func runBlocking(_ work: @escaping @Sendable () async -> Void) {
    _ = try? runBlocking { await work(); return true }
}
