import Foundation
import TiltboardCore

/// The WebSocket protocol (RFC 6455) as far as this server speaks it: the handshake, text frames
/// out, and small frames in (the page only ever sends a close, a ping or a short text).
package enum WebSocketFrames {
    /// Longest payload accepted from a client; anything longer closes the connection (1009).
    package static let maxClientPayload = 1024

    /// `Sec-WebSocket-Accept` for the client's key (§4.2.2).
    package static func acceptValue(forKey key: String) -> String {
        Data(SHA1.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// The handshake's checks (§4.2.1): the key when the request is a valid upgrade, else a reason.
    package static func handshakeKey(_ head: HTTPRequestHead) -> Result<String, HandshakeError> {
        guard head.method == "GET" else { return .failure(HandshakeError("a WebSocket upgrade must be a GET")) }
        guard head.header("upgrade")?.lowercased() == "websocket" else {
            return .failure(HandshakeError("this address is a WebSocket: send Upgrade: websocket"))
        }
        let connection = (head.header("connection") ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces }
        guard connection.contains("upgrade") else { return .failure(HandshakeError("Connection must include Upgrade")) }
        guard head.header("sec-websocket-version") == "13" else { return .failure(HandshakeError("Sec-WebSocket-Version must be 13")) }
        guard let key = head.header("sec-websocket-key"), Data(base64Encoded: key)?.count == 16 else {
            return .failure(HandshakeError("Sec-WebSocket-Key must be 16 bytes in base64"))
        }
        return .success(key)
    }

    package struct HandshakeError: CategorizedError, Sendable {
        package var message: String
        init(_ message: String) { self.message = message }
        package var description: String { message }
        package var category: ErrorCategory { .invalidRequest }
    }

    /// The 101 response completing the handshake.
    package static func upgradeResponse(key: String) -> [UInt8] {
        Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(acceptValue(forKey: key))\r\n\r\n".utf8)
    }

    package enum Opcode: UInt8, Sendable {
        case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10
    }

    /// One unmasked server frame, FIN set.
    package static func frame(_ opcode: Opcode, _ payload: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode.rawValue]
        let n = payload.count
        if n < 126 {
            out.append(UInt8(n))
        } else if n <= 0xFFFF {
            out += [126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(n) >> UInt64(shift)) & 0xFF)) }
        }
        out += payload
        return out
    }

    /// A close frame with `code` (1000 normal, 1001 going away, 1002 protocol error, 1009 too big).
    package static func close(_ code: UInt16, reason: String = "") -> [UInt8] {
        frame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(120)))
    }

    /// What `parseClientFrame` made of the bytes so far.
    package enum ClientFrame: Sendable, Equatable {
        case incomplete
        /// A frame of `length` bytes in all, unmasked payload.
        case frame(opcode: UInt8, fin: Bool, payload: [UInt8], length: Int)
        /// Not acceptable: close with `code`.
        case refused(code: UInt16, reason: String)
    }

    /// Parses one client frame at the start of `bytes`. Client frames must be masked (§5.1) and,
    /// here, at most `maxClientPayload` bytes; control frames at most 125 and not fragmented (§5.5).
    package static func parseClientFrame(_ bytes: [UInt8]) -> ClientFrame {
        guard bytes.count >= 2 else { return .incomplete }
        let fin = bytes[0] & 0x80 != 0
        guard bytes[0] & 0x70 == 0 else { return .refused(code: 1002, reason: "reserved bits set") }
        let opcode = bytes[0] & 0x0F
        guard [0, 1, 2, 8, 9, 10].contains(opcode) else { return .refused(code: 1002, reason: "unknown opcode") }
        guard bytes[1] & 0x80 != 0 else { return .refused(code: 1002, reason: "client frames must be masked") }
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return .incomplete }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return .incomplete }
            var n: UInt64 = 0
            for i in 2..<10 { n = n << 8 | UInt64(bytes[i]) }
            // §5.2: the most significant bit of a 64-bit length must be 0.
            guard n >> 63 == 0 else { return .refused(code: 1002, reason: "payload length with its top bit set") }
            guard opcode < 8 else { return .refused(code: 1002, reason: "control frame longer than 125 bytes") }
            guard n <= UInt64(maxClientPayload) else { return .refused(code: 1009, reason: "frame too large") }
            length = Int(n)
            offset = 10
        }
        // §5.5: control frames carry at most 125 bytes and are never fragmented.
        if opcode >= 8 && length > 125 { return .refused(code: 1002, reason: "control frame longer than 125 bytes") }
        if opcode >= 8 && !fin { return .refused(code: 1002, reason: "fragmented control frame") }
        guard length <= maxClientPayload else { return .refused(code: 1009, reason: "frame too large") }
        guard bytes.count >= offset + 4 + length else { return .incomplete }
        let mask = Array(bytes[offset..<offset + 4])
        let start = offset + 4
        var payload = Array(bytes[start..<start + length])
        for i in payload.indices { payload[i] ^= mask[i & 3] }
        return .frame(opcode: opcode, fin: fin, payload: payload, length: start + length)
    }
}

extension WebSocketFrames {
    /// The answer to a client's close frame (§5.5.1, §7.4): its own code echoed when valid, 1000
    /// when it carries none; 1002 for a one-byte payload or a code no endpoint may send (below
    /// 1000, 1004–1006, 1015, 1016–2999 unassigned, 5000 and up); 1007 for a reason that is
    /// not UTF-8.
    package static func closeReply(_ payload: [UInt8]) -> (code: UInt16, reason: String) {
        if payload.isEmpty { return (1000, "") }
        guard payload.count >= 2 else { return (1002, "close payload of 1 byte") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard isValidCloseCode(code) else { return (1002, "invalid close code \(code)") }
        guard isValidUTF8(payload[2...]) else { return (1007, "close reason is not UTF-8") }
        return (code, "")
    }

    /// Codes an endpoint may send in a close frame (§7.4.1, §7.4.2 and the IANA registry:
    /// 1012–1014 are registered since).
    package static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
    package static func isValidUTF8(_ bytes: some Collection<UInt8>) -> Bool {
        var it = bytes.makeIterator()
        while let b0 = it.next() {
            if b0 < 0x80 { continue }
            let need: Int, low: UInt8, high: UInt8
            switch b0 {
            case 0xC2...0xDF: need = 1; low = 0x80; high = 0xBF
            case 0xE0: need = 2; low = 0xA0; high = 0xBF
            case 0xE1...0xEC, 0xEE...0xEF: need = 2; low = 0x80; high = 0xBF
            case 0xED: need = 2; low = 0x80; high = 0x9F
            case 0xF0: need = 3; low = 0x90; high = 0xBF
            case 0xF1...0xF3: need = 3; low = 0x80; high = 0xBF
            case 0xF4: need = 3; low = 0x80; high = 0x8F
            default: return false
            }
            guard let b1 = it.next(), b1 >= low, b1 <= high else { return false }
            for _ in 1..<need {
                guard let b = it.next(), b & 0xC0 == 0x80 else { return false }
            }
        }
        return true
    }

    /// Puts a client's data messages back together from their frames (§5.4) and checks them:
    /// a continuation only inside a message, no new message inside one, at most
    /// `maxClientPayload` bytes in all, and a text message valid UTF-8 (§8.1: else 1007).
    package struct MessageAssembler: Sendable {
        private var opcode: UInt8?
        private var bytes: [UInt8] = []

        package init() {}

        package enum Result: Sendable, Equatable {
            case pending
            case text(String)
            case binary([UInt8])
            case refused(code: UInt16, reason: String)
        }

        package mutating func add(opcode frameOpcode: UInt8, fin: Bool, payload: [UInt8]) -> Result {
            if frameOpcode == Opcode.continuation.rawValue {
                guard opcode != nil else { return .refused(code: 1002, reason: "continuation frame outside a message") }
            } else {
                guard opcode == nil else { return .refused(code: 1002, reason: "new message inside a fragmented one") }
                opcode = frameOpcode
                bytes = []
            }
            guard bytes.count + payload.count <= maxClientPayload else { return .refused(code: 1009, reason: "message too large") }
            bytes += payload
            guard fin else { return .pending }
            defer { opcode = nil; bytes = [] }
            if opcode == Opcode.text.rawValue {
                guard isValidUTF8(bytes) else { return .refused(code: 1007, reason: "text frame is not UTF-8") }
                return .text(String(decoding: bytes, as: UTF8.self))
            }
            return .binary(bytes)
        }
    }
}

/// SHA-1 (FIPS 180-4), only for the WebSocket handshake's accept value, which the protocol fixes.
enum SHA1 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8((bitLength >> UInt64(shift)) & 0xFF)) }
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + i * 4
                w[i] = UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8 | UInt32(data[j + 3])
            }
            for i in 16..<80 { w[i] = rotate(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch i {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let t = rotate(a, 5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, rotate(b, 30), a, t)
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return h.flatMap { [UInt8($0 >> 24), UInt8(($0 >> 16) & 0xFF), UInt8(($0 >> 8) & 0xFF), UInt8($0 & 0xFF)] }
    }

    private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}
