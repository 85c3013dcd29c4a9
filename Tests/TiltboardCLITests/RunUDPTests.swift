import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `run --udp` sends each JSON object as one datagram, the same bytes as the stdout line.
final class RunUDPTests: XCTestCase {
    func testDatagramsCarryTheJSONLines() throws {
        let folder = try makeScratchFolder(self)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        XCTAssertTrue(bound)
        var buffer = Int32(1 << 20)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        let port = UInt16(bigEndian: address.sin_port)

        let r = try CLIRunner.run(["run", "--json", "--duration", "1", "--output-rate", "20", "--udp", "127.0.0.1:\(port)"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("sending JSON datagrams to 127.0.0.1:\(port)"), r.stderr)
        var datagrams: [String] = []
        var bytes = [UInt8](repeating: 0, count: 2048)
        while true {
            let n = recv(fd, &bytes, bytes.count, Int32(MSG_DONTWAIT))
            if n <= 0 { break }
            datagrams.append(String(decoding: bytes[0..<n], as: UTF8.self))
        }
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(Double(lines.count), 20, accuracy: 2)
        XCTAssertEqual(datagrams, lines)
    }
}
