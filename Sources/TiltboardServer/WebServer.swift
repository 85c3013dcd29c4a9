import Foundation
import FlyingSocks
import Synchronization
import TiltboardCore

/// The HTTP/1.1 and WebSocket server of `tiltboard serve`, on FlyingSocks' non-blocking sockets and
/// event loop. It keeps its own limits, which a server for a LAN needs whatever its handlers do:
/// at most `maxClients` connections (more are answered 503 and closed), bounded heads and bodies
/// (431, 413), an idle limit between requests, a deadline for each request to arrive (408), a
/// deadline for each write (a client that stops reading is dropped), and a failed `accept` (no
/// descriptors left) is waited out instead of ending the server.
package final class WebServer: Sendable {
    package struct Limits: Sendable {
        /// Connections open at once, WebSocket streams included.
        package var maxClients = 32
        /// Request line and headers, bytes.
        package var maxHeadBytes = 8192
        /// Request body, bytes (the API's bodies are a few dozen).
        package var maxBodyBytes = 4096
        /// An open connection with no request under way is closed after this long.
        package var idleSeconds = 30.0
        /// A request must arrive whole within this long of its first byte.
        package var requestSeconds = 10.0
        /// Each write (a response, a frame) must complete within this long.
        package var writeSeconds = 10.0
        /// How to allow more connections, in the program's words, added to the 503 of a full server.
        package var moreClients: String?

        package init() {}
    }

    package let limits: Limits
    package let api: ServeAPI
    /// The thread the server's tasks run on, below the loop's priority.
    package let executor: ServerExecutor
    private let clock: any ServerClock
    private let host: String
    private let requestedPort: UInt16
    private let pool: any AsyncSocketPool

    private struct State {
        var listener: AsyncSocket?
        var port: UInt16 = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextID = 0
        var stopping = false
        var poolTask: Task<Void, Never>?
        var acceptTask: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let open = Atomic<Int>(0)
    private let accepted = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let stalled = Atomic<Int>(0)

    package init(host: String, port: UInt16, limits: Limits = Limits(), api: ServeAPI, clock: any ServerClock = SystemServerClock(),
                executor: ServerExecutor = .shared) {
        self.host = host; self.requestedPort = port; self.limits = limits; self.api = api; self.clock = clock
        self.executor = executor
        pool = SocketPool.make()
    }

    /// Connections open now, accepted in all, and refused for being over the limit.
    package var counts: (open: Int, accepted: Int, refused: Int) {
        (open.load(ordering: .relaxed), accepted.load(ordering: .relaxed), refused.load(ordering: .relaxed))
    }

    /// Writes waiting now for a client to take what was sent before.
    package var stalledWrites: Int { stalled.load(ordering: .relaxed) }

    /// The port bound (the one chosen when 0 was asked for).
    package var port: UInt16 { state.withLock { $0.port } }

    /// Runs `work` on the server's thread until it ends or is cancelled (the hub's pacing).
    package func background(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: executor, operation: work)
    }

    /// Binds and listens, then accepts connections in the background until `stop`. Throws
    /// `ServeBindError` when the address cannot be bound.
    @discardableResult
    package func start() async throws -> UInt16 {
        try await pool.prepare()
        let socket = try Self.listen(host: host, port: requestedPort)
        let listener = try AsyncSocket(socket: socket, pool: pool)
        let port: UInt16
        switch try socket.sockname() {
        case let .ip4(_, p), let .ip6(_, p): port = p
        case .unix: port = 0
        }
        let pool = self.pool
        let poolTask = Task(executorPreference: executor) { _ = try? await pool.run() }
        let acceptTask = Task(executorPreference: executor) { await self.acceptLoop(listener) }
        state.withLock {
            $0.listener = listener; $0.port = port; $0.poolTask = poolTask; $0.acceptTask = acceptTask
        }
        return port
    }

    /// Stops accepting, tells the WebSocket clients and gives every connection `grace` to
    /// finish before cutting it.
    package func stop(grace: Duration = .seconds(1)) async {
        let (listener, accept) = state.withLock { s -> (AsyncSocket?, Task<Void, Never>?) in
            s.stopping = true
            return (s.listener, s.acceptTask)
        }
        accept?.cancel()
        await accept?.value
        try? listener?.close()
        for hub in api.hubs { hub.closeAll() }
        let tasks = state.withLock { Array($0.tasks.values) }
        let clock = self.clock
        let cutter = Task(executorPreference: executor) {
            if grace > .zero { try? await clock.sleep(for: grace) }
            for task in tasks { task.cancel() }
        }
        for task in tasks { await task.value }
        cutter.cancel()
        let poolTask = state.withLock { $0.poolTask }
        poolTask?.cancel()
        await poolTask?.value
    }

    // MARK: accepting

    private func acceptLoop(_ listener: AsyncSocket) async {
        while !Task.isCancelled {
            let socket: AsyncSocket
            do {
                socket = try await listener.accept()
            } catch {
                if Task.isCancelled { return }
                // Out of descriptors (EMFILE) or a connection reset before it was taken: wait a
                // moment for connections to close, then accept again.
                try? await clock.sleep(for: .milliseconds(50))
                continue
            }
            accepted.add(1, ordering: .relaxed)
            let over = open.add(1, ordering: .acquiringAndReleasing).newValue > limits.maxClients
            let id = state.withLock { s -> Int? in
                guard !s.stopping else { return nil }
                s.nextID += 1
                return s.nextID
            }
            guard let id else {
                open.subtract(1, ordering: .relaxed)
                try? socket.close()
                return
            }
            // Registered under the lock the task takes to remove itself, so it cannot end first.
            state.withLock { s in
                s.tasks[id] = Task(executorPreference: executor) { [self] in
                    if over {
                        refused.add(1, ordering: .relaxed)
                        await refuseBusy(socket)
                    } else {
                        await serve(socket)
                    }
                    try? socket.close()
                    open.subtract(1, ordering: .acquiringAndReleasing)
                    _ = state.withLock { $0.tasks.removeValue(forKey: id) }
                }
            }
        }
    }

    /// Over the limit: 503, without waiting for more than a moment for the request.
    private func refuseBusy(_ socket: AsyncSocket) async {
        let most = limits.maxHeadBytes
        _ = try? await timed(.seconds(1)) { try await socket.read(atMost: most) }
        let response = HTTPResponse.error(503, "too many clients (at most \(limits.maxClients)): close another tab or device\(limits.moreClients.map { ", or \($0)" } ?? "")", close: true)
        try? await write(response.encoded(), to: socket)
    }

    // MARK: one connection

    private func serve(_ socket: AsyncSocket) async {
        var buffer: [UInt8] = []
        while !Task.isCancelled {
            // Between requests: the idle limit.
            if buffer.isEmpty {
                guard let bytes = try? await timed(Nanoseconds.duration(seconds: limits.idleSeconds), { try await socket.read(atMost: 4096) }) else { return }
                buffer += bytes
            }
            let deadline = clock.now() &+ Nanoseconds.span(seconds: limits.requestSeconds)
            var head: HTTPRequestHead?
            var headLength = 0
            while head == nil {
                switch HTTPRequestHead.parse(buffer, maxBytes: limits.maxHeadBytes) {
                case let .complete(h, length):
                    head = h; headLength = length
                case let .refused(status, reason):
                    try? await write(HTTPResponse.error(status, reason, close: true).encoded(), to: socket)
                    return
                case .incomplete:
                    guard let more = await readBefore(deadline, socket) else {
                        if !buffer.isEmpty { try? await write(HTTPResponse.error(408, "the request did not arrive in time", close: true).encoded(), to: socket) }
                        return
                    }
                    buffer += more
                }
            }
            guard let head else { return }
            buffer.removeFirst(headLength)
            guard head.contentLength <= limits.maxBodyBytes else {
                let r = HTTPResponse.error(413, "the body is \(head.contentLength) bytes, more than the \(limits.maxBodyBytes) this server takes", close: true)
                try? await write(r.encoded(), to: socket)
                return
            }
            while buffer.count < head.contentLength {
                guard let more = await readBefore(deadline, socket) else {
                    try? await write(HTTPResponse.error(408, "the request's body did not arrive in time", close: true).encoded(), to: socket)
                    return
                }
                buffer += more
            }
            let body = Array(buffer.prefix(head.contentLength))
            buffer.removeFirst(head.contentLength)

            switch api.handle(head, body: body, serverPort: port) {
            case var .respond(response):
                if !head.keepAlive { response.close = true }
                guard (try? await write(response.encoded(), to: socket)) != nil, !response.close else { return }
            case let .upgrade(key, hub):
                guard (try? await write(WebSocketFrames.upgradeResponse(key: key), to: socket)) != nil else { return }
                await stream(socket, leftover: buffer, hub: hub)
                return
            }
        }
    }

    /// Reads what arrives before `deadline` (a clock instant); nil on timeout, end or error.
    private func readBefore(_ deadline: UInt64, _ socket: AsyncSocket) async -> [UInt8]? {
        let now = clock.now()
        guard deadline > now else { return nil }
        return try? await timed(Nanoseconds.duration(deadline - now)) { try await socket.read(atMost: 4096) }
    }

    /// Writes all of `bytes` within the write limit. What the socket takes at once is written
    /// without waiting (the usual case, and the cheap one); while the client's socket is full the
    /// rest waits, counted in `stalledWrites`, until the limit.
    private func write(_ bytes: [UInt8], to socket: AsyncSocket) async throws {
        try await write(Data(bytes), to: socket)
    }

    private func write(_ data: Data, to socket: AsyncSocket) async throws {
        var index = data.startIndex
        while index < data.endIndex {
            do {
                index = try socket.socket.write(data, from: index)
            } catch SocketError.blocked {
                break
            }
        }
        guard index < data.endIndex else { return }
        let pool = self.pool
        let from = index
        try await timed(Nanoseconds.duration(seconds: limits.writeSeconds)) {
            var index = from
            while index < data.endIndex {
                do {
                    index = try socket.socket.write(data, from: index)
                } catch SocketError.blocked {
                    self.stalled.add(1, ordering: .relaxed)
                    defer { self.stalled.subtract(1, ordering: .relaxed) }
                    try await pool.suspendSocket(socket.socket, untilReadyFor: .write)
                }
            }
        }
    }

    /// `operation`, cut off after `limit` (throws `ServeTimeout`).
    private func timed<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let clock = self.clock
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw ServeTimeout() }
            return value
        }
    }

    // MARK: WebSocket

    /// The state stream: the client's mailbox written out as frames as fast as the client takes
    /// them (latest state wins), while its own frames (ping, close) are read and answered.
    private func stream(_ socket: AsyncSocket, leftover: [UInt8], hub: ServeHub) async {
        let box = hub.connect()
        defer { hub.disconnect(box) }
        // The reader ends the stream through the mailbox (so the close frame goes out last); the
        // writer's end (sent its farewell, or the client stopped taking frames) ends the reader.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.readClientFrames(socket, box: box, leftover: leftover) }
            await writeFrames(socket, box: box)
            group.cancelAll()
        }
    }

    private func writeFrames(_ socket: AsyncSocket, box: ClientMailbox) async {
        while let next = await box.next() {
            let data: Data
            switch next {
            case let .queued(b): data = Data(b)
            // The frame every client shares, unless this one has missed some.
            case let .state(json, dropped, framed): data = dropped == 0 ? framed : Data(WebSocketFrames.frame(.text, Self.withDropped(json, dropped)))
            case let .farewell(b):
                try? await write(b, to: socket)
                return
            }
            do { try await write(data, to: socket) } catch { return }
        }
    }

    /// A state frame with `"dropped":N` (frames this client missed) once there are any.
    static func withDropped(_ json: [UInt8], _ dropped: UInt64) -> [UInt8] {
        guard dropped > 0, json.last == UInt8(ascii: "}") else { return json }
        return json.dropLast() + Array(",\"dropped\":\(dropped)}".utf8)
    }

    private func readClientFrames(_ socket: AsyncSocket, box: ClientMailbox, leftover: [UInt8]) async {
        var buffer = leftover
        var message = WebSocketFrames.MessageAssembler()
        while !Task.isCancelled {
            switch WebSocketFrames.parseClientFrame(buffer) {
            case .incomplete:
                guard let more = try? await socket.read(atMost: 4096) else {
                    box.close(farewell: WebSocketFrames.close(1000))
                    return
                }
                buffer += more
            case let .refused(code, reason):
                box.close(farewell: WebSocketFrames.close(code, reason: reason))
                return
            case let .frame(opcode, fin, payload, length):
                buffer.removeFirst(length)
                switch opcode {
                case WebSocketFrames.Opcode.close.rawValue:
                    let (code, reason) = WebSocketFrames.closeReply(payload)
                    box.close(farewell: WebSocketFrames.close(code, reason: reason))
                    return
                case WebSocketFrames.Opcode.ping.rawValue:
                    box.offerQueued(WebSocketFrames.frame(.pong, payload))
                case WebSocketFrames.Opcode.pong.rawValue:
                    break
                default:
                    // Text and binary, whole or in fragments: checked (UTF-8, order, size) and
                    // otherwise ignored, as the page sends nothing else that matters.
                    if case let .refused(code, reason) = message.add(opcode: opcode, fin: fin, payload: payload) {
                        box.close(farewell: WebSocketFrames.close(code, reason: reason))
                        return
                    }
                }
            }
        }
    }

    // MARK: binding

    static func listen(host: String, port: UInt16) throws -> Socket {
        let name = host == "localhost" ? "127.0.0.1" : host
        do {
            if name.contains(":") {
                return try bind(sockaddr_in6.inet6(ip6: name, port: port))
            }
            return try bind(sockaddr_in.inet(ip4: name, port: port))
        } catch let error as SocketError {
            if case let .failed(type, code, message) = error {
                throw ServeBindError(host: host, port: port, operation: type, errno: code, message: message)
            }
            throw ServeBindError(host: host, port: port, operation: "bind", errno: 0, message: "\(error)")
        }
    }

    private static func bind<A: SocketAddress>(_ address: A) throws -> Socket {
        let socket = try Socket(domain: Int32(A.family))
        do {
            try socket.setValue(true, for: .localAddressReuse)
            try socket.bind(to: address)
            try socket.listen(maxPendingConnection: 128)
        } catch {
            try? socket.close()
            throw error
        }
        return socket
    }

    /// True for addresses only this machine can reach.
    package static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// A request, response or frame took longer than its limit.
struct ServeTimeout: Error {}

/// The address could not be bound or listened on.
package struct ServeBindError: CategorizedError, Sendable {
    package var host: String
    package var port: UInt16
    package var operation: String
    package var errno: Int32
    package var message: String

    package var description: String {
        "cannot listen on \(host):\(port) (\(operation): \(message))"
    }

    package var category: ErrorCategory {
        switch errno {
        case EACCES, EPERM: return .permissionDenied
        case 0: return .invalidRequest
        default: return .unavailable
        }
    }
}
