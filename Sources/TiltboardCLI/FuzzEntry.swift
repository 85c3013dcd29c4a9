#if TILTBOARD_FUZZ
import ArgumentParser
import Tiltboard
import TiltboardCore
import TiltboardServer
#if canImport(Glibc)
import Glibc
#endif

/// The fuzzing build's entry point: hands the command line to libFuzzer's driver.
@main
enum FuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(llvmFuzzerRunDriver(&argc, &argv, tiltboardFuzzOne))
    }
}

/// libFuzzer's driver for programs with a main of their own (`int LLVMFuzzerRunDriver(int *argc,
/// char ***argv, int (*callback)(const uint8_t *, size_t))`).
@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                                 _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Int32

/// libFuzzer's entry, compiled only into the fuzzing build (Tests/fuzz/run-fuzz.sh). The first
/// byte chooses what the rest feeds: the board-file parser, the profile decoder, the haptic
/// effect and pattern parsers, the command line (NUL-separated arguments, parsed and validated
/// as `runMapped` does, with the usage line it would print), serve's request parser with the
/// access rules and the WebSocket handshake, or serve's JSON bodies and client frames. Any trap
/// is a finding.
func tiltboardFuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 6 {
    case 0:
        do { _ = try BoardDescription.parse(json: bytes, source: "fuzz.json") } catch { _ = "\(error)" }
    case 1:
        do { _ = try ProfileStore.decode(bytes, path: "fuzz.json") } catch { _ = "\(error)" }
    case 2:
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? HapticEffect.parse(name: text)
        _ = try? HapticEffect.pattern(text, repeat: 2, strength: 0.5)
        _ = ProfileStore.slug(text)
    case 3:
        let arguments = joiningNegativeValues(bytes.split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) })
        do {
            try checkHelpTopic(TiltboardCommand.self, arguments)
            _ = try TiltboardCommand.parseAsRoot(arguments)
        } catch {
            _ = usageLine(TiltboardCommand.self, TiltboardCommand.message(for: error), arguments)
        }
    case 4:
        if case let .complete(head, length) = HTTPRequestHead.parse(bytes, maxBytes: 8192) {
            precondition(length <= bytes.count)
            _ = AccessPolicy(ownNames: ["pi", "pi.local"], token: "0123456789abcdef0123456789abcdef").refusal(head)
            _ = AccessPolicy(ownNames: [], token: nil).refusal(head)
            _ = WebSocketFrames.handshakeKey(head)
            _ = (head.keepAlive, head.queryItem("token"))
        }
    default:
        _ = ServeAPI.emptyObjectProblem(bytes)
        _ = ServeAPI.effect(fromBody: bytes)
        if case let .frame(_, _, payload, length) = WebSocketFrames.parseClientFrame(bytes) {
            precondition(length <= bytes.count && payload.count <= WebSocketFrames.maxClientPayload)
        }
    }
    return 0
}
#endif
