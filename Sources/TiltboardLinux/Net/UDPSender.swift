#if canImport(Glibc)
import Glibc
#endif
import TiltboardDrivers

/// Sends datagrams to one `HOST:PORT` over UDP (IPv4 or IPv6), for a game to consume the stream.
package final class UDPSender {
    private let fd: Int32
    private var address: sockaddr_storage
    private let addressLength: socklen_t
    /// `HOST:PORT` as given.
    package let destination: String
    /// Datagrams the kernel refused (e.g. nobody listening yet): counted, never fatal.
    package private(set) var failedSends = 0
    /// The `errno` of the first refused datagram.
    package private(set) var firstFailure: Int32?
    /// The kernel's text for `firstFailure`, e.g. `Connection refused`.
    package var firstFailureReason: String? { firstFailure.map { String(cString: strerror($0)) } }

    /// Resolves `destination` (`host:port`, `[v6]:port`) and opens a socket.
    package init(destination: String) throws {
        self.destination = destination
        guard let colon = destination.lastIndex(of: ":"),
              let port = UInt16(destination[destination.index(after: colon)...]) else {
            throw UDPSenderError(destination: destination, problem: .notHostAndPort)
        }
        var host = String(destination[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let info = result else {
            throw UDPSenderError(destination: destination, problem: .unresolved(resolverCode: rc))
        }
        defer { freeaddrinfo(result) }
        if let problem = Self.unreachable(port: port, address: info.pointee.ai_addr) {
            throw UDPSenderError(destination: destination, problem: problem)
        }
        let sock = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard sock >= 0 else {
            throw UDPSenderError(destination: destination, problem: .socket(errno: errno))
        }
        fd = sock
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
        }
        address = storage
        addressLength = info.pointee.ai_addrlen
        // Connected, so the kernel reports a closed port (ECONNREFUSED) on a later send.
        let connected = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(sock, $0, addressLength) }
        }
        guard connected == 0 else {
            let code = errno  // deinit closes the socket
            throw UDPSenderError(destination: destination, problem: .cannotSend(errno: code))
        }
    }

    deinit { close(fd) }

    /// Why nobody could receive datagrams sent to `port` at `address`, or nil when someone can:
    /// port 0 is no port (a receiver binding it gets another one), the unspecified address
    /// (0.0.0.0, ::) names no machine, and 255.255.255.255 is a broadcast no connected socket
    /// may send to.
    static func unreachable(port: UInt16, address: UnsafePointer<sockaddr>) -> UDPSenderError.Problem? {
        if port == 0 { return .portZero }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
            if ip == 0 { return .unspecifiedIPv4 }
            if ip == 0xFFFF_FFFF { return .broadcastIPv4 }
        case AF_INET6:
            let zero = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { $0.allSatisfy { $0 == 0 } }
            }
            if zero { return .unspecifiedIPv6 }
        default: break
        }
        return nil
    }

    /// `text` as an error quotes it: at most 80 characters.
    package static func quoted(_ text: String) -> String { text.count <= 80 ? text : String(text.prefix(79)) + "…" }

    /// Sends one datagram; failures are counted, not thrown, so a missing listener never stops
    /// the loop. Returns true for the first failure, so it can be reported once.
    @discardableResult
    package func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT)) < 0 else { return false }
        let code = errno
        failedSends += 1
        guard firstFailure == nil else { return false }
        firstFailure = code
        return true
    }
}

/// A UDP destination that cannot be used: `HOST:PORT` as given, and why (`problem`). It carries
/// no sentence: the program that shows it words it.
package struct UDPSenderError: Error, CustomStringConvertible, Sendable {
    /// Why the destination cannot be used.
    package enum Problem: Sendable, Equatable {
        /// Not `HOST:PORT` with a port of 0…65535.
        case notHostAndPort
        /// The resolver's failure (a `getaddrinfo` code; 0 when it gave no address).
        case unresolved(resolverCode: Int32)
        /// Port 0, which nobody can listen on.
        case portZero
        /// 0.0.0.0: no machine.
        case unspecifiedIPv4
        /// 255.255.255.255: a broadcast, not a listener.
        case broadcastIPv4
        /// `::`: no machine.
        case unspecifiedIPv6
        /// The socket could not be made; the errno.
        case socket(errno: Int32)
        /// The kernel refused to connect the socket there; the errno.
        case cannotSend(errno: Int32)
    }

    /// The destination as given.
    package var destination: String
    /// Why it cannot be used.
    package var problem: Problem

    /// `destination` cannot be used because of `problem`.
    package init(destination: String, problem: Problem) {
        self.destination = destination
        self.problem = problem
    }

    /// The problem and the destination (quoted short), for a log; a program words it for people.
    package var description: String { "UDPSenderError(\(problem), destination: \(UDPSender.quoted(destination)))" }
}
