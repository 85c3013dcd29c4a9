import XCTest
@testable import TiltboardServer

/// The request-head parser, the WebSocket framing and the handshake, on bytes.
final class HTTPParsingTests: XCTestCase {
    private func parse(_ text: String, max: Int = 8192) -> HTTPRequestHead.Parse {
        HTTPRequestHead.parse(Array(text.utf8), maxBytes: max)
    }

    func testParsesRequestLineHeadersAndLength() throws {
        let text = "POST /api/haptics?token=ab%20c HTTP/1.1\r\nHost: pi.local:8080\r\nContent-Length: 17\r\nX-Empty:\r\n\r\n{\"effect\":\"buzz\"}"
        guard case let .complete(head, length) = parse(text) else { return XCTFail("\(parse(text))") }
        XCTAssertEqual(head.method, "POST")
        XCTAssertEqual(head.path, "/api/haptics")
        XCTAssertEqual(head.queryItem("token"), "ab c")
        XCTAssertEqual(head.header("host"), "pi.local:8080")
        XCTAssertEqual(head.header("x-empty"), "")
        XCTAssertEqual(head.contentLength, 17)
        XCTAssertEqual(length, text.utf8.count - 17)
        XCTAssertTrue(head.keepAlive)
    }

    func testIncompleteUntilTheBlankLine() {
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nHost: x\r\n"), .incomplete)
        XCTAssertEqual(parse("GET / HTTP/1.1\nHost: x\n\n").isComplete, true)
    }

    func testRefusals() {
        XCTAssertEqual(parse(String(repeating: "a", count: 200), max: 100).status, 431)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 200) + "\r\n\r\n", max: 100).status, 431)
        XCTAssertEqual(parse("GET / HTTP/2.0\r\n\r\n").status, 400)
        XCTAssertEqual(parse("get / HTTP/1.1\r\n\r\n").status, 400)
        XCTAssertEqual(parse("GET http://x/ HTTP/1.1\r\n\r\n").status, 400)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").status, 400)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n").status, 400)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nContent-Length: 99999999999999\r\n\r\n").status, 400)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").status, 400)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n").status, 400)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nBad Name: a\r\n\r\n").status, 400)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nX: a\u{01}b\r\n\r\n").status, 400)
    }

    func testHTTP10AndConnectionCloseDoNotKeepAlive() throws {
        guard case let .complete(h10, _) = parse("GET / HTTP/1.0\r\n\r\n"),
              case let .complete(close, _) = parse("GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n") else { return XCTFail() }
        XCTAssertFalse(h10.keepAlive)
        XCTAssertFalse(close.keepAlive)
    }

    func testSHA1AndTheHandshakeExampleOfRFC6455() {
        // FIPS 180-4 example "abc".
        XCTAssertEqual(SHA1.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined(),
                       "a9993e364706816aba3e25717850c26c9cd0d89d")
        // RFC 6455 §1.3.
        XCTAssertEqual(WebSocketFrames.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testServerFramesAndMaskedClientFrames() {
        XCTAssertEqual(WebSocketFrames.frame(.text, Array("hi".utf8)), [0x81, 2, 0x68, 0x69])
        XCTAssertEqual(Array(WebSocketFrames.frame(.text, [UInt8](repeating: 0, count: 300)).prefix(4)), [0x81, 126, 0x01, 0x2C])
        // RFC 6455 §5.7: a masked "Hello".
        let hello: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        XCTAssertEqual(WebSocketFrames.parseClientFrame(hello), .frame(opcode: 1, fin: true, payload: Array("Hello".utf8), length: 11))
        XCTAssertEqual(WebSocketFrames.parseClientFrame(Array(hello.prefix(8))), .incomplete)
        // Unmasked, too long, fragmented control, reserved bits.
        XCTAssertEqual(WebSocketFrames.parseClientFrame([0x81, 0x05, 1, 2, 3, 4, 5]), .refused(code: 1002, reason: "client frames must be masked"))
        XCTAssertEqual(WebSocketFrames.parseClientFrame([0x82, 0xFF, 0, 0, 0, 1, 0, 0, 0, 0]), .refused(code: 1009, reason: "frame too large"))
        XCTAssertEqual(WebSocketFrames.parseClientFrame([0x09, 0x80, 0, 0, 0, 0]), .refused(code: 1002, reason: "fragmented control frame"))
        XCTAssertEqual(WebSocketFrames.parseClientFrame([0x89, 0xFF, 0, 0, 0, 0, 0, 0, 4, 0]), .refused(code: 1002, reason: "control frame longer than 125 bytes"))
        XCTAssertEqual(WebSocketFrames.parseClientFrame([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1]), .refused(code: 1002, reason: "payload length with its top bit set"))
        XCTAssertEqual(WebSocketFrames.parseClientFrame([0xC1, 0x80, 0, 0, 0, 0]), .refused(code: 1002, reason: "reserved bits set"))
    }
}

extension HTTPRequestHead.Parse {
    var status: Int? {
        if case let .refused(status, _) = self { return status }
        return nil
    }

    var isComplete: Bool {
        if case .complete = self { return true }
        return false
    }
}
