/// Conversions between seconds and the 90 kHz ticks SCTE 35 times and durations are counted in.
///
/// ANSI/SCTE 35 §9.4: pts_time, pts_adjustment and break_duration's duration are "in terms of ticks
/// of the program's 90 kHz clock"; §10.3.3 segmentation_duration likewise.
public enum Ticks {
    /// Ticks per second.
    public static let perSecond: UInt64 = 90_000

    /// The largest 33-bit value (pts_time, pts_adjustment, duration).
    public static let max33: UInt64 = (1 << 33) - 1

    /// The largest 40-bit value (segmentation_duration).
    public static let max40: UInt64 = (1 << 40) - 1

    /// The ticks nearest to `seconds` (negative values give 0).
    public static func ticks(seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        let value = (seconds * Double(perSecond)).rounded()
        return value >= 1.8e19 ? UInt64.max : UInt64(value)
    }

    /// `ticks` in seconds.
    public static func seconds(_ ticks: UInt64) -> Double { Double(ticks) / Double(perSecond) }

    /// `ticks` as seconds with six decimals, exactly (no floating point).
    public static func secondsText(_ ticks: UInt64) -> String {
        let whole = ticks / perSecond
        let micros = (ticks % perSecond) * 1_000_000 / perSecond
        let fraction = String(micros)
        return "\(whole)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
