import Foundation

/// Who may use the server, checked on every request before anything else (the WebSocket upgrade
/// included):
/// - `Host` must be one of this machine's own names, `localhost` or an IP literal, so a page on
///   another site cannot reach the server through a DNS name it rebinds to this machine;
/// - `Origin`, when a browser sends one, must be `http://` + that same Host, so another site's
///   page cannot send requests (a cross-site POST) to it;
/// - bound beyond loopback (unless the token is turned off), the token: `Authorization: Bearer …`, the
///   `tiltboard-token` cookie, or `?token=…`.
package struct AccessPolicy: Sendable {
    /// Names the Host header may carry besides `localhost` and IP literals, lower case.
    package var ownNames: Set<String>
    /// The token every request must carry; nil when none is needed.
    package var token: String?

    package static let cookieName = "tiltboard-token"

    package init(ownNames: some Sequence<String>, token: String?) {
        self.ownNames = Set(ownNames.map { $0.lowercased() })
        self.token = token
    }

    /// What a request may not do: nil when it passes, else the error response.
    /// `serverPort`, when given, is the port the server listens on: a Host naming another port
    /// is refused like another name (a Host without a port is taken as naming this server).
    package func refusal(_ head: HTTPRequestHead, serverPort: UInt16? = nil) -> HTTPResponse? {
        guard let host = head.header("host"), !host.isEmpty else {
            return .error(400, "the request has no Host header")
        }
        guard let (name, port) = Self.hostAndPort(host), allowedHost(name) else {
            return .error(403, "refused Host \(Self.quoted(host)): use this machine's name, localhost or an IP address, with a port of 1…65535")
        }
        if let port, let serverPort, serverPort != 0, port != Int(serverPort) {
            return .error(403, "refused Host \(Self.quoted(host)): this server listens on port \(serverPort), not \(port)")
        }
        if let origin = head.header("origin"), origin.lowercased() != "http://" + host.lowercased() {
            return .error(403, "refused Origin \(Self.quoted(origin)): only pages served from http://\(host) may use this server")
        }
        if let token, !Self.same(presentedToken(head) ?? "", token) {
            return .error(401, "missing or wrong token: open the URL that `tiltboard serve` printed (…/?token=…), or send Authorization: Bearer <token> (the token is in the serve-token file beside the profile)")
        }
        return nil
    }

    /// The token the request carries, from the header, the cookie or the query.
    package func presentedToken(_ head: HTTPRequestHead) -> String? {
        if let auth = head.header("authorization") {
            let parts = auth.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return parts[1].trimmingSpaces }
        }
        if let query = head.queryItem("token") { return query }
        for cookie in (head.header("cookie") ?? "").split(separator: ";") {
            let parts = cookie.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingSpaces == Self.cookieName { return parts[1].trimmingSpaces }
        }
        return nil
    }

    /// The host part of a Host header (`name:port`, `[v6]:port`), lower case; nil when malformed.
    static func hostName(_ host: String) -> String? { hostAndPort(host)?.name }

    /// The host part, lower case, and the port when there is one (1…65535); nil when malformed.
    static func hostAndPort(_ host: String) -> (name: String, port: Int?)? {
        let lower = host.lowercased()
        if lower.hasPrefix("[") {
            guard let close = lower.firstIndex(of: "]") else { return nil }
            let rest = lower[lower.index(after: close)...]
            let name = String(lower[lower.index(after: lower.startIndex)..<close])
            if rest.isEmpty { return (name, nil) }
            guard rest.hasPrefix(":"), let port = validPort(rest.dropFirst()) else { return nil }
            return (name, port)
        }
        let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty else { return nil }
        if parts.count == 2 {
            guard let port = validPort(parts[1]) else { return nil }
            return (String(name), port)
        }
        return (String(name), nil)
    }

    /// A port of 1…65535 in decimal digits (RFC 3986 §3.2.3), else nil.
    private static func validPort(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.count <= 5, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(s), (1...65535).contains(n) else { return nil }
        return n
    }

    func allowedHost(_ name: String) -> Bool {
        let trimmed = name.hasSuffix(".") ? String(name.dropLast()) : name
        return trimmed == "localhost" || ownNames.contains(trimmed) || Self.isIPLiteral(trimmed)
    }

    /// A dotted-quad IPv4 address or an IPv6 address (as inside brackets).
    static func isIPLiteral(_ s: String) -> Bool {
        let quads = s.split(separator: ".", omittingEmptySubsequences: false)
        if quads.count == 4, quads.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 }) {
            return true
        }
        return s.contains(":") && s.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }

    /// Compares in time independent of where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    /// At most 80 characters of `s`, quoted, for a message.
    static func quoted(_ s: String) -> String { "\"\(s.prefix(80))\"" }
}

/// The names this machine answers to: its host name, `NAME.local` (mDNS, as a Pi announces
/// itself) and what the resolver knows of it.
package enum MachineNames {
    package static func current() -> [String] {
        let name = ProcessInfo.processInfo.hostName.lowercased()
        var names = [name]
        let short = name.split(separator: ".").first.map(String.init) ?? name
        names.append(short)
        names.append(short + ".local")
        return names
    }
}
