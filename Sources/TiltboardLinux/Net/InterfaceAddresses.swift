#if canImport(Glibc)
import Glibc
#endif

/// One address of one of the machine's network interfaces, as getifaddrs lists it.
package struct InterfaceAddress: Sendable, Equatable {
    /// `eth0`, `wlan0`, `lo`.
    package var interface: String
    /// Numeric: `192.168.1.20`, `fd00::20` (without brackets or a zone).
    package var address: String
    package var isIPv6: Bool
    /// The interface is the loopback one.
    package var isLoopback: Bool

    package init(interface: String, address: String, isIPv6: Bool, isLoopback: Bool = false) {
        self.interface = interface; self.address = address; self.isIPv6 = isIPv6; self.isLoopback = isLoopback
    }

    /// 169.254.0.0/16 or fe80::/10: valid on one link only, and not in a URL a phone can open
    /// (an IPv6 one would need its zone).
    package var isLinkLocal: Bool {
        if !isIPv6 { return address.hasPrefix("169.254.") }
        let lower = address.lowercased()
        return ["fe8", "fe9", "fea", "feb"].contains { lower.hasPrefix($0) }
    }

    /// The IPv4 and IPv6 addresses of every interface that is up, in the order the kernel lists them.
    package static func current() -> [InterfaceAddress] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var list: [InterfaceAddress] = []
        var next = first
        while let entry = next?.pointee {
            next = entry.ifa_next
            guard let addr = entry.ifa_addr, entry.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            let family = Int32(addr.pointee.sa_family)
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch family {
            case AF_INET:
                var a = UnsafeRawPointer(addr).load(as: sockaddr_in.self).sin_addr
                guard inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) != nil else { continue }
            case AF_INET6:
                var a = UnsafeRawPointer(addr).load(as: sockaddr_in6.self).sin6_addr
                guard inet_ntop(AF_INET6, &a, &text, socklen_t(text.count)) != nil else { continue }
            default:
                continue
            }
            list.append(InterfaceAddress(interface: String(cString: entry.ifa_name), address: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                                         isIPv6: family == AF_INET6,
                                         isLoopback: entry.ifa_flags & UInt32(IFF_LOOPBACK) != 0))
        }
        return list
    }
}
