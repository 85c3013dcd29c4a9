import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// `probe --all-buses`: every supported chip on every I²C bus the kernel lists, and the board
/// file each one found would need.
package enum BusDiscovery {
    /// What one bus held.
    package struct BusReport: Sendable, Equatable {
        /// The bus device (`/dev/i2c-N`, or `simulated`).
        package var device: String
        /// The adapter's sysfs name; "" when unknown.
        package var name: String
        /// The multiplexer channel the bus is, if it is one.
        package var mux: I2CAdapterInfo.MuxChannel?
        /// Supported chips that answered, in the registry's address order.
        package var found: [ProbeResult]
        /// Addresses a kernel driver owns on this bus: not asked.
        package var owned: [I2CDriverBinding]
        /// Why the bus could not be opened or probed (nothing was found on it then).
        package var failure: String?

        package init(device: String, name: String, mux: I2CAdapterInfo.MuxChannel? = nil, found: [ProbeResult] = [],
                     owned: [I2CDriverBinding] = [], failure: String? = nil) {
            self.device = device; self.name = name; self.mux = mux; self.found = found; self.owned = owned
            self.failure = failure
        }
    }

    /// Probes the sensors' own addresses (`ChipRegistry.addresses`) on each adapter's bus,
    /// opened with `open`, leaving out those `owned` says a kernel driver holds. Only chips a
    /// driver recognises are kept. A bus that fails is reported with `describe`'s words and the
    /// next one is probed.
    package static func probe(_ adapters: [I2CAdapterInfo], open: (String) throws -> any I2CBus,
                              owned: (String, [UInt8]) -> [I2CDriverBinding],
                              describe: (any Error) -> String) -> [BusReport] {
        adapters.map { adapter in
            let device = adapter.device
            let taken = owned(device, ChipRegistry.addresses)
            var report = BusReport(device: device, name: adapter.name, mux: adapter.mux, owned: taken)
            let free = ChipRegistry.addresses.filter { a in !taken.contains { $0.address == a } }
            do {
                let bus = try open(device)
                defer { bus.close() }
                report.found = try ChipKind.probe(bus: bus, addresses: free).filter { $0.chip != nil }
            } catch {
                report.failure = describe(error)
            }
            return report
        }
    }

    /// A board file for `device` found on `bus` (the board-file format of `BoardFileParser`):
    /// its name, chip, bus and address, everything else at the format's defaults. A multiplexer
    /// channel is its own bus device; the board's name says which channel of which bus it is.
    package static func boardFile(for device: ProbeResult, chip: ChipKind, bus: String,
                                  mux: I2CAdapterInfo.MuxChannel?) -> (fileName: String, text: String) {
        var name = "\(chip.partName) at \(device.address.hex) on \(bus)"
        if let mux { name += " (channel \(mux.channel) of the multiplexer on /dev/i2c-\(mux.parent))" }
        let busName = bus.split(separator: "/").last.map(String.init) ?? bus
        let fileName = "\(chip.rawValue)-\(busName)-\(device.address.hex).json"
        let text = """
        {
          "name": \(jsonString(name)),
          "sensor": { "chip": \(jsonString(chip.rawValue)), "bus": \(jsonString(bus)), "address": "\(device.address.hex)" }
        }

        """
        return (fileName, text)
    }

    /// `text` as a JSON string literal.
    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
