import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// `tiltboard serve` as a child process: the URLs it prints, the token file, its option and bind
/// errors, and a clean stop on SIGTERM with the motor off.
final class ServeCommandTests: XCTestCase {
    private func writeBoard(_ folder: String) throws -> String {
        let path = folder + "/board.json"
        let json = """
        {"name": "serve test board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
         "motor": {"chip": "simulated", "line": 17},
         "simulation": {"script": "flat", "noise": false, "motorLog": "\(folder)/motor.log"}}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func environment(_ folder: String) -> [String: String] {
        ["XDG_CONFIG_HOME": folder, "HOME": folder]
    }

    func testATokenFileOthersCanReadIsRefusedAtStartWithTheFix() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder)
        let tokenFile = folder + "/tiltboard/profiles/serve-token"
        try FileManager.default.createDirectory(atPath: folder + "/tiltboard/profiles", withIntermediateDirectories: true)
        try Data("0123456789abcdef0123456789abcdef\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        XCTAssertEqual(chmod(tokenFile, 0o644), 0)
        let args = ["serve", "--board", board, "--host", "0.0.0.0", "--port", "0", "--duration", "0.5"]
        let r = try CLIRunner.run(args, environment: environment(folder))
        XCTAssertEqual(r.status, 77, r.stderr)
        XCTAssertEqual(r.stdout, "", "no URL printed")
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: error: ") }
        XCTAssertEqual(errors.count, 1, r.stderr)
        XCTAssertTrue(errors.first?.hasPrefix("tiltboard: error: the token file \(tokenFile) has mode 644") == true, r.stderr)
        XCTAssertTrue(r.stderr.contains("chmod 600 \(tokenFile)"), r.stderr)
        // Another user's file.
        XCTAssertEqual(chmod(tokenFile, 0o600), 0)
        XCTAssertEqual(chown(tokenFile, 65534, 65534), 0)
        let other = try CLIRunner.run(args, environment: environment(folder))
        XCTAssertEqual(other.status, 77, other.stderr)
        XCTAssertEqual(other.stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: error: ") }.count, 1, other.stderr)
        XCTAssertTrue(other.stderr.contains("belongs to uid 65534"), other.stderr)
        // Fixed as told: serve starts with the stored token.
        XCTAssertEqual(chown(tokenFile, geteuid(), getegid()), 0)
        let fixed = try CLIRunner.run(args, environment: environment(folder))
        XCTAssertEqual(fixed.status, 0, fixed.stderr)
        XCTAssertTrue(fixed.stdout.contains("?token=0123456789abcdef0123456789abcdef\n"), fixed.stdout)
    }

    func testBeyondLoopbackPrintsTheTokenURLKeepsTheTokenPrivateAndStopsOnSIGTERM() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder)
        let child = try ChildProcess(["serve", "--board", board, "--host", "0.0.0.0", "--port", "0"], environment: environment(folder))
        pollUntil { child.stdout.contains("\n") || !child.process.isRunning }
        let urls = child.stdout.split(separator: "\n").map(String.init)
        let first = try XCTUnwrap(urls.first, child.stderr)
        XCTAssertTrue(first.hasPrefix("http://"), first)
        XCTAssertTrue(first.contains(".local:"), "the machine's NAME.local: \(first)")
        let token = try XCTUnwrap(first.components(separatedBy: "/?token=").last)
        let tokenFile = folder + "/tiltboard/profiles/serve-token"
        XCTAssertEqual(try String(contentsOfFile: tokenFile, encoding: .utf8), token + "\n")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        let port = try XCTUnwrap(UInt16(first.split(separator: ":").last?.split(separator: "/").first ?? ""))

        XCTAssertEqual(try httpStatus(port: port, "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"), 401)
        XCTAssertEqual(try httpStatus(port: port, "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n"), 200)
        XCTAssertEqual(try httpStatus(port: port, "POST /api/haptics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Length: 17\r\nConnection: close\r\n\r\n{\"effect\":\"buzz\"}"), 200)

        kill(child.process.processIdentifier, SIGTERM)
        XCTAssertTrue(child.waitForExit())
        XCTAssertEqual(child.process.terminationStatus, 0, child.stderr)
        XCTAssertTrue(child.stderr.contains("loop: ticks "), child.stderr)
        let motor = try String(contentsOfFile: folder + "/motor.log", encoding: .utf8)
        XCTAssertTrue(motor.contains(" 1"), "the buzz reached the motor: \(motor)")
        XCTAssertTrue(motor.hasSuffix(" 0\n"), "the motor is off at the end: \(motor)")

        // The same token on the next start; --new-token replaces it.
        let again = try CLIRunner.run(["serve", "--board", board, "--host", "0.0.0.0", "--port", "0", "--duration", "0.5"], environment: environment(folder))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("?token=\(token)\n"), again.stdout)
        let renewed = try CLIRunner.run(["serve", "--board", board, "--host", "0.0.0.0", "--port", "0", "--duration", "0.5", "--new-token"],
                                        environment: environment(folder))
        XCTAssertEqual(renewed.status, 0, renewed.stderr)
        XCTAssertFalse(renewed.stdout.contains(token), renewed.stdout)
        XCTAssertTrue(renewed.stderr.contains("new token stored in \(tokenFile) (mode 0600)"), renewed.stderr)
    }

    func testLoopbackNeedsNoTokenAndNoAuthWarns() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder)
        let local = try CLIRunner.run(["serve", "--board", board, "--port", "0", "--duration", "0.5"], environment: environment(folder))
        XCTAssertEqual(local.status, 0, local.stderr)
        XCTAssertTrue(local.stdout.hasPrefix("http://127.0.0.1:"), local.stdout)
        XCTAssertFalse(local.stdout.contains("token"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/tiltboard/profiles/serve-token"))
        let open = try CLIRunner.run(["serve", "--board", board, "--host", "0.0.0.0", "--port", "0", "--duration", "0.5", "--no-auth"],
                                     environment: environment(folder))
        XCTAssertEqual(open.status, 0, open.stderr)
        XCTAssertFalse(open.stdout.contains("token"), open.stdout)
        XCTAssertTrue(open.stderr.contains("tiltboard: warning: --no-auth: anyone who can reach"), open.stderr)
    }

    func testAPortInUseIs69AndBadOptionsAre64() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder)
        let (fd, port) = try listeningSocket()
        defer { close(fd) }
        let busy = try CLIRunner.run(["serve", "--board", board, "--port", String(port), "--duration", "0.5"], environment: environment(folder))
        XCTAssertEqual(busy.status, 69, busy.stderr)
        XCTAssertTrue(busy.stderr.contains("tiltboard: error: cannot listen on 127.0.0.1:\(port): the port is in use"), busy.stderr)
        XCTAssertEqual(busy.stderr.components(separatedBy: "tiltboard: error:").count, 2, "one error line")
        let motor = (try? String(contentsOfFile: folder + "/motor.log", encoding: .utf8)) ?? ""
        XCTAssertFalse(motor.contains(" 1"), "the motor never ran: \(motor)")

        for bad in [["--host", "example.com"], ["--port", "70000"], ["--ui-rate", "0"], ["--ui-rate", "61"], ["--max-clients", "0"]] {
            let r = try CLIRunner.run(["serve", "--board", board] + bad, environment: environment(folder))
            XCTAssertEqual(r.status, 64, "\(bad): \(r.stderr)")
        }
    }

    /// A socket listening on a free port of 127.0.0.1.
    private func listeningSocket() throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard ok else { close(fd); throw POSIXError(.EADDRINUSE) }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }

    /// Sends `request` to 127.0.0.1:`port` and returns the response's status code.
    private func httpStatus(port: UInt16, _ request: String) throws -> Int {
        try httpResponse(port: port, request).status
    }
}

/// Sends `request` to 127.0.0.1:`port` and reads until the server closes: the status and the body.
func httpResponse(port: UInt16, _ request: String) throws -> (status: Int, body: String) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = port.bigEndian
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else { throw POSIXError(.ECONNREFUSED) }
    _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        received += buffer[..<n]
    }
    let text = String(decoding: received, as: UTF8.self)
    let line = String(decoding: received.prefix { $0 != 13 }, as: UTF8.self)
    let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0, body)
}
