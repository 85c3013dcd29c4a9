import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Find \(ChipRegistry.partNames("and")) chips on an I²C bus.",
        discussion: """
        Asks \(ChipRegistry.all.map { "\($0.addresses.map { $0.hex }.joined(separator: " and ")) (\($0.partName), \($0.addressPinName) low/high)" }.joined(separator: " and ")) \
        who they are; --all asks every address from 0x08 to 0x77. `--bus simulated` probes the \
        simulator (\(ChipRegistry.oneOfEach.map { "an \($0.chip.partName) at \($0.address.hex)" }.joined(separator: " and "))). \
        Where a chip that comes with other devices is found (the Sense HAT's LSM9DS1), those are \
        listed as expected at their addresses and never read. Exits 69 when nothing answers.
        """
    )

    @Option(help: "The I²C bus device, or `simulated`.")
    var bus: String = "/dev/i2c-1"

    @Flag(help: "Probe every address 0x08–0x77, not just the sensors' own.")
    var all = false

    @Flag(help: "One JSON object per device found.")
    var json = false

    func run() throws {
        let addresses: [UInt8] = all ? Array(0x08...0x77) : ChipRegistry.addresses
        // The sensors' own addresses first: a chip found there names the devices that come
        // with it, and --all then leaves those addresses alone.
        let ordered = ChipRegistry.addresses.filter(addresses.contains) + addresses.filter { !ChipRegistry.addresses.contains($0) }
        // An address a kernel driver owns is not asked (that would configure its chip behind
        // the driver's back); it is reported as the other commands report it, and exits 69.
        let owned = CommandBoard.kernelDrivers(onBus: bus, addresses: addresses)
        let free = ordered.filter { address in !owned.contains { $0.address == address } }
        // As with the other commands, an owned address is named even when the bus cannot be
        // opened (i2c-dev not loaded, no permission): that is the first thing to fix.
        let i2c: I2CBus?
        do { i2c = try CommandBoard.probeBus(bus) } catch {
            if owned.isEmpty { throw error }
            i2c = nil
        }
        var found: [ProbeResult] = []
        var companions: [CompanionDevice] = []
        if let i2c {
            let sensors = free.filter(ChipRegistry.addresses.contains)
            found = try ChipKind.probe(bus: i2c, addresses: sensors)
            companions = ChipRegistry.companions(of: found.compactMap(\.chip))
                .filter { c in !found.contains { $0.address == c.address } }
            let rest = free.filter { a in !sensors.contains(a) && !companions.contains { $0.address == a } }
            found += try ChipKind.probe(bus: i2c, addresses: rest)
            if all { found.sort { $0.address < $1.address } }
        }
        guard !found.isEmpty || !owned.isEmpty else {
            throw CLIError(message: "no device answered on \(bus) at \(addresses.count > 4 ? "0x08–0x77" : addresses.map(\.hex).joined(separator: ", ")): check the wiring (SDA, SCL, 3V3, GND) and that the sensor has power", category: .unavailable)
        }
        var out = JSONLineWriter()
        for device in found {
            if json {
                out.reset()
                out.write(probed: device)
                Console.out(out.bytes)
            } else {
                let id = device.chipID.map { " (ID \($0.hex))" } ?? ""
                Console.out("\(device.address.hex)  \(device.part)\(id)\n")
            }
        }
        for companion in companions {
            if json {
                out.reset()
                out.beginObject()
                out.plainString("address", companion.address.hex)
                out.plainString("part", companion.name)
                out.plainString("note", "expected on this board; not accessed")
                out.endObject()
                out.newline()
                Console.out(out.bytes)
            } else {
                Console.out("\(companion.address.hex)  \(companion.name) (expected; not accessed)\n")
            }
        }
        // One error line per owned address; the last ends the command.
        for binding in owned.dropLast() {
            Console.error("tiltboard: error: \(Advice.message(for: KernelDriverBoundError(binding: binding)))\n")
        }
        if let last = owned.last { throw KernelDriverBoundError(binding: last) }
    }
}

extension JSONLineWriter {
    /// `{"address":"0x68","chip":…,"part":…,"chipID":…}` and a newline
    /// (docs/schema/probe-line.schema.json).
    mutating func write(probed device: ProbeResult) {
        beginObject()
        plainString("address", device.address.hex)
        if let chip = device.chip { plainString("chip", chip.rawValue) }
        plainString("part", device.part)
        if let id = device.chipID { plainString("chipID", id.hex) }
        endObject()
        newline()
    }
}
