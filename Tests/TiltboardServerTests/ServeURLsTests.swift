import Foundation
import XCTest
import TiltboardLinux
@testable import TiltboardServer

/// The URLs `serve` prints, from a staged list of interfaces, and the Host check's agreement with them.
final class ServeURLsTests: XCTestCase {
    private let names = ["pi", "pi.local"]
    private let interfaces = [
        InterfaceAddress(interface: "lo", address: "127.0.0.1", isIPv6: false, isLoopback: true),
        InterfaceAddress(interface: "lo", address: "::1", isIPv6: true, isLoopback: true),
        InterfaceAddress(interface: "eth0", address: "192.168.1.20", isIPv6: false),
        InterfaceAddress(interface: "eth0", address: "fe80::ba27:ebff:fe01:2345", isIPv6: true),
        InterfaceAddress(interface: "eth0", address: "fd00::20", isIPv6: true),
        InterfaceAddress(interface: "wlan0", address: "169.254.7.9", isIPv6: false),
        InterfaceAddress(interface: "wlan0", address: "10.0.0.7", isIPv6: false),
        InterfaceAddress(interface: "wlan0", address: "10.0.0.7", isIPv6: false),
    ]

    private func urls(_ host: String, token: String? = "T0K") -> [String] {
        ServeURLs.make(host: host, port: 8080, token: token, names: names, interfaces: interfaces)
    }

    func testEveryNetworkBindListsTheLocalNameAndEachReachableAddress() {
        XCTAssertEqual(urls("0.0.0.0"), [
            "http://pi.local:8080/?token=T0K",
            "http://192.168.1.20:8080/?token=T0K",
            "http://10.0.0.7:8080/?token=T0K",
        ])
        XCTAssertEqual(urls("::"), [
            "http://pi.local:8080/?token=T0K",
            "http://192.168.1.20:8080/?token=T0K",
            "http://[fd00::20]:8080/?token=T0K",
            "http://10.0.0.7:8080/?token=T0K",
        ])
        XCTAssertEqual(urls("0.0.0.0", token: nil), ["http://pi.local:8080/", "http://192.168.1.20:8080/", "http://10.0.0.7:8080/"])
    }

    func testOneAddressOrLoopback() {
        XCTAssertEqual(urls("192.168.1.20"), ["http://pi.local:8080/?token=T0K", "http://192.168.1.20:8080/?token=T0K"])
        XCTAssertEqual(urls("fd00::20"), ["http://pi.local:8080/?token=T0K", "http://[fd00::20]:8080/?token=T0K"])
        XCTAssertEqual(urls("127.0.0.1", token: nil), ["http://127.0.0.1:8080/"])
        XCTAssertEqual(urls("::1", token: nil), ["http://[::1]:8080/"])
    }

    func testLinkLocal() {
        XCTAssertTrue(InterfaceAddress(interface: "e", address: "169.254.0.1", isIPv6: false).isLinkLocal)
        XCTAssertTrue(InterfaceAddress(interface: "e", address: "FEBF::1", isIPv6: true).isLinkLocal)
        XCTAssertFalse(InterfaceAddress(interface: "e", address: "fec0::1", isIPv6: true).isLinkLocal)
        XCTAssertFalse(InterfaceAddress(interface: "e", address: "192.168.254.1", isIPv6: false).isLinkLocal)
    }

    /// Each printed URL passes the Host and Origin checks with its token; a name not printed does not.
    func testTheHostCheckAcceptsEveryPrintedURL() throws {
        let policy = AccessPolicy(ownNames: names, token: "T0K")
        for url in urls("::") {
            let authority = String(url.dropFirst("http://".count).prefix { $0 != "/" })
            let request = "GET /api/state?token=T0K HTTP/1.1\r\nHost: \(authority)\r\nOrigin: http://\(authority)\r\n\r\n"
            guard case let .complete(head, _) = HTTPRequestHead.parse(Array(request.utf8), maxBytes: 8192) else { return XCTFail(request) }
            XCTAssertNil(policy.refusal(head, serverPort: 8080), url)
        }
        let other = "GET /api/state?token=T0K HTTP/1.1\r\nHost: pi.example:8080\r\n\r\n"
        guard case let .complete(head, _) = HTTPRequestHead.parse(Array(other.utf8), maxBytes: 8192) else { return XCTFail(other) }
        XCTAssertEqual(policy.refusal(head, serverPort: 8080)?.status, 403)
    }

    /// The server's tasks run on its own thread, below the loop's priority.
    func testServerTasksRunOnTheLowerPriorityThread() async {
        let thread = await Task(executorPreference: ServerExecutor.shared) { CallingThread() }.value
        XCTAssertEqual(thread.name, "tiltboard-serve")
        XCTAssertEqual(thread.nice, ServerExecutor.nice)
        XCTAssertEqual(ServerExecutor.nice, 10)
    }
}

/// The calling thread's name and nice value (PRIO_PROCESS with 0: the calling thread's own on Linux).
private struct CallingThread: Sendable {
    var name = Thread.current.name
    var nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
}
