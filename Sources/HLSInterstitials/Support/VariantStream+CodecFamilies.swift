import HLSPlaylist

extension VariantStream {
    /// The codec families of CODECS, each code up to its first `.` (`avc1`, `mp4a`, `hvc1`); empty
    /// when CODECS is absent. The one place codecs are compared by family: the asset validator's
    /// `interstitial-compatibility` rule and the stitched form's choice of an ad variant use it.
    package var codecFamilies: Set<String> {
        Set((codecs ?? []).map { String($0.prefix { $0 != "." }) })
    }
}
