import Foundation

/// One response: status, headers and a body, encoded whole.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [(String, String)]
    package var body: [UInt8]
    /// Close the connection after sending it.
    package var close = false

    package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], close: Bool = false) {
        self.status = status; self.headers = headers; self.body = body; self.close = close
    }

    /// A JSON body (sorted keys; see `ServeJSON`).
    package static func json(_ status: Int, _ value: some Encodable) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: ServeJSON.encode(value))
    }

    /// `{"error": message}` with `status`.
    package static func error(_ status: Int, _ message: String, close: Bool = false) -> HTTPResponse {
        var r = json(status, ServeJSON.ErrorBody(error: message))
        r.close = close
        return r
    }

    /// The header `name` (exact case as set), if set.
    package func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Status line, headers (with Content-Length and Connection) and body.
    package func encoded() -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\n"
        text += "Cache-Control: no-store\r\n"
        text += "X-Content-Type-Options: nosniff\r\n"
        if close { text += "Connection: close\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 202: return "Accepted"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}
