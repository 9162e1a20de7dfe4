/// An `avail_descriptor()` (tag 0x00): the provider's ID of an avail.
///
/// ANSI/SCTE 35 §10.3.1: "provider_avail_id … provides an ID for the avail which is identified by the
/// splice_insert() command."
public struct AvailDescriptor: Hashable, Sendable {
    /// provider_avail_id.
    public var providerAvailID: UInt32
    /// Bytes after the last field, within descriptor_length.
    public var trailingBytes: [UInt8]

    /// An avail descriptor.
    public init(providerAvailID: UInt32, trailingBytes: [UInt8] = []) {
        self.providerAvailID = providerAvailID
        self.trailingBytes = trailingBytes
    }

    init(reading reader: inout BitReader) throws(SCTE35Error) {
        providerAvailID = try reader.uint32("provider_avail_id")
        trailingBytes = try reader.rest("trailing_bytes")
    }

    func write(to writer: inout BitWriter) throws(SCTE35Error) {
        try writer.bits(UInt64(providerAvailID), 32, "provider_avail_id")
        writer.append(trailingBytes)
    }

    var jsonFields: [(String, JSONNode)] { [("provider_avail_id", .uint(providerAvailID))] }
}
