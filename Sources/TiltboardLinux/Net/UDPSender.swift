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
            throw UDPSenderError(destination: destination, reason: "expected HOST:PORT, e.g. 127.0.0.1:9999")
        }
        var host = String(destination[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let info = result else {
            let why = rc == 0 ? "no address" : String(cString: gai_strerror(rc))
            throw UDPSenderError(destination: destination, reason: "cannot resolve it: \(why)")
        }
        defer { freeaddrinfo(result) }
        if let why = Self.unreachable(port: port, address: info.pointee.ai_addr) {
            throw UDPSenderError(destination: destination, reason: why)
        }
        let sock = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard sock >= 0 else {
            throw UDPSenderError(destination: destination, reason: "socket: \(String(cString: strerror(errno)))")
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
            throw UDPSenderError(destination: destination, reason: "cannot send there: \(String(cString: strerror(code)))")
        }
    }

    deinit { close(fd) }

    /// Why nobody could receive datagrams sent to `port` at `address`, or nil when someone can:
    /// port 0 is no port (a receiver binding it gets another one), the unspecified address
    /// (0.0.0.0, ::) names no machine, and 255.255.255.255 is a broadcast no connected socket
    /// may send to.
    static func unreachable(port: UInt16, address: UnsafePointer<sockaddr>) -> String? {
        if port == 0 { return "port 0 is no port anyone can listen on: choose 1…65535" }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
            if ip == 0 { return "0.0.0.0 is no machine to send to: name one, e.g. 127.0.0.1" }
            if ip == 0xFFFF_FFFF { return "255.255.255.255 is a broadcast, not a listener: name the machine" }
        case AF_INET6:
            let zero = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { $0.allSatisfy { $0 == 0 } }
            }
            if zero { return ":: is no machine to send to: name one, e.g. [::1]" }
        default: break
        }
        return nil
    }

    /// `text` as an error quotes it: at most 80 characters.
    static func quoted(_ text: String) -> String { text.count <= 80 ? text : String(text.prefix(79)) + "…" }

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

/// A UDP destination that cannot be used: `HOST:PORT` as given, and why.
package struct UDPSenderError: Error, CustomStringConvertible, Sendable {
    package var destination: String
    package var reason: String

    package init(destination: String, reason: String) {
        self.destination = destination
        self.reason = reason
    }

    /// `"host:port": why`, the destination quoted short.
    package var description: String { "\(UDPSender.quoted(destination)): \(reason)" }
}
