/// The version `tiltboard --version` prints; packaging/build-deb.sh reads it from this line too.
enum TiltboardVersion {
    static let string = "0.1.0"
}
