import Foundation

/// A request's line and headers, parsed from bytes with hard limits: the server never holds more
/// than `maxBytes` of a head, and anything it does not understand is refused, not guessed at.
package struct HTTPRequestHead: Sendable, Equatable {
    package var method: String
    /// The path, percent-encoding kept (`/api/state`).
    package var path: String
    /// The raw query after `?`, or empty.
    package var query: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    package var minorVersion: Int
    /// Header names lower-cased, values trimmed, in arrival order.
    package var headers: [(name: String, value: String)]
    /// The body's length (Content-Length; 0 without one).
    package var contentLength: Int

    package static func == (a: HTTPRequestHead, b: HTTPRequestHead) -> Bool {
        a.method == b.method && a.path == b.path && a.query == b.query && a.minorVersion == b.minorVersion
            && a.contentLength == b.contentLength && a.headers.map(\.name) == b.headers.map(\.name)
            && a.headers.map(\.value) == b.headers.map(\.value)
    }

    /// The first value of the header `name` (lower case).
    package func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The value of `name` in the query (`?token=…`), percent-decoded.
    package func queryItem(_ name: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.first == Substring(name) { return parts.count > 1 ? String(parts[1]).removingPercentEncoding ?? "" : "" }
        }
        return nil
    }

    /// The connection stays open after the response (HTTP/1.1 unless `Connection: close`; HTTP/1.0 never).
    package var keepAlive: Bool {
        let tokens = (header("connection") ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces }
        return minorVersion >= 1 && !tokens.contains("close")
    }

    /// What `parse` made of the bytes so far.
    package enum Parse: Sendable, Equatable {
        /// No blank line yet and still under the limit: read more.
        case incomplete
        /// A head of `length` bytes (the blank line included); the body follows.
        case complete(HTTPRequestHead, length: Int)
        /// Refused with this status and reason.
        case refused(status: Int, reason: String)
    }

    /// Longest method name accepted.
    static let maxMethodLength = 16

    /// Parses the head at the start of `bytes` (which may hold the body and more after it).
    /// Lines end with CRLF or a bare LF.
    package static func parse(_ bytes: some Collection<UInt8>, maxBytes: Int) -> Parse {
        let bytes = Array(bytes.prefix(maxBytes + 4))
        guard let end = headEnd(bytes) else {
            return bytes.count > maxBytes ? .refused(status: 431, reason: "the request's headers are longer than \(maxBytes) bytes") : .incomplete
        }
        guard end <= maxBytes else { return .refused(status: 431, reason: "the request's headers are longer than \(maxBytes) bytes") }
        var lines = bytes[..<end].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { return .refused(status: 400, reason: "empty request line") }
        guard let requestLine = String(bytes: first, encoding: .utf8) else {
            return .refused(status: 400, reason: "the request line is not text")
        }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .refused(status: 400, reason: "malformed request line") }
        let method = String(parts[0])
        guard !method.isEmpty, method.count <= maxMethodLength, method.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            return .refused(status: 400, reason: "malformed method")
        }
        let target = parts[1]
        guard target.first == "/", target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .refused(status: 400, reason: "the target must be a path starting with /")
        }
        let minor: Int
        switch parts[2] {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default: return .refused(status: 400, reason: "only HTTP/1.0 and HTTP/1.1 are spoken here")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return .refused(status: 400, reason: "a header line without a colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                // Also catches obsolete line folding (a line starting with a space or tab).
                return .refused(status: 400, reason: "malformed header name")
            }
            let rawValue = line[line.index(after: colon)...]
            guard rawValue.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }),
                  let value = String(bytes: rawValue, encoding: .utf8) else {
                return .refused(status: 400, reason: "a header value with control characters")
            }
            headers.append((String(decoding: name, as: UTF8.self).lowercased(), value.trimmingSpaces))
        }
        for unique in ["host", "content-length", "origin", "authorization"] where headers.filter({ $0.name == unique }).count > 1 {
            return .refused(status: 400, reason: "more than one \(unique) header")
        }
        if headers.contains(where: { $0.name == "transfer-encoding" }) {
            return .refused(status: 400, reason: "send the body with Content-Length, not Transfer-Encoding")
        }
        var length = 0
        if let text = headers.first(where: { $0.name == "content-length" })?.value {
            guard !text.isEmpty, text.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text) else {
                return .refused(status: 400, reason: "malformed Content-Length")
            }
            length = n
        }
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
        let path = String(target.prefix { $0 != "?" })
        return .complete(HTTPRequestHead(method: method, path: path, query: query, minorVersion: minor,
                                         headers: headers, contentLength: length), length: end)
    }

    /// The index just past the blank line ending the head, or nil.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\n") {
                if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\n") { return i + 2 }
                if i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "\r"), bytes[i + 2] == UInt8(ascii: "\n") { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    /// RFC 9110 §5.6.2 token characters.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...last])
    }
}
