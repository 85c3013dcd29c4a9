import TiltboardLinux

/// The URLs `serve` prints at start, one per line: what a browser can open it at.
package enum ServeURLs {
    /// Bound to loopback: that address. Bound beyond it: the machine's `NAME.local` (from `names`,
    /// as the Host check accepts it), then, for a wildcard bind, each of its own addresses that a
    /// phone on the network can reach (`interfaces`, loopback and link-local left out; IPv6 ones,
    /// in brackets, only when bound to `::`, as 0.0.0.0 takes IPv4 alone), or else the one address
    /// bound. Each with the token when there is one.
    package static func make(host: String, port: UInt16, token: String?, names: [String], interfaces: [InterfaceAddress]) -> [String] {
        let suffix = token.map { "/?token=\($0)" } ?? "/"
        func url(_ address: String) -> String { "http://\(address.contains(":") ? "[\(address)]" : address):\(port)\(suffix)" }
        if WebServer.isLoopback(host) { return [url(host)] }
        var list = [url(names.first { $0.hasSuffix(".local") } ?? "localhost")]
        if host == "0.0.0.0" || host == "::" {
            for a in interfaces where !a.isLoopback && !a.isLinkLocal && (host == "::" || !a.isIPv6) {
                let u = url(a.address)
                if !list.contains(u) { list.append(u) }
            }
        } else {
            list.append(url(host))
        }
        return list
    }
}
